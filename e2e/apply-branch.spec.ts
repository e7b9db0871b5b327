import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import type { E2eState } from "./e2e-state";
import { addProjectAndPrepare, listTree, type TreeListing } from "./keep-result-support";
import { shootBoth } from "./screenshots";
import { startSecondInstance, type SecondInstance } from "./second-instance";

/**
 * Apply as a branch in Chromium (issue 28, point 2), on an instance of its own (this file sorts before
 * first-minutes, which needs an empty dashboard): the calendar fixture as a git repository with a local bare
 * remote; on trial 1.1's panel "Apply as a branch…" shows the branch name and the study's commit first, a
 * remote is chosen, the outcome names the commit; the branch is in the repository and the remote, the
 * project folder (work tree, index, HEAD) is as it was; the trial's and the project's branch lists show it
 * and Remove deletes it. Screenshots at 1280 and 390 px (BRANCH_SCREENSHOTS, default /tmp/shots-apply-branch).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(420_000);

const SHOTS = process.env.BRANCH_SCREENSHOTS ?? "/tmp/shots-apply-branch";
const KEY = "sk-e2e-apply-branch-key";
let product: SecondInstance;
let admin: BrowserContext;
let page: Page;
let projectDir: string;
let bareRemote: string;
let studyUrl: string;
let projectUrl: string;
let branchName: string;
let before: { tree: TreeListing; index: string; head: string };

function git(cwd: string, args: string[]): string {
  return execFileSync("git", ["-c", "core.hooksPath=/dev/null", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

async function api<T>(procedure: string, input: unknown, method: "GET" | "POST" = "GET"): Promise<T> {
  const query = method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
  const response = await fetch(`${product.origin}/api/trpc/${procedure}${query}`, {
    method,
    headers: { authorization: `Bearer ${product.adminToken}`, "content-type": "application/json" },
    ...(method === "POST" ? { body: JSON.stringify(input) } : {}),
  });
  const text = await response.text();
  expect(response.status, `${procedure}: ${text.slice(0, 300)}`).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

type StudyAnswer = { state: string; projectId: string; trials: { state: string; error: string | null }[] };

function userState() {
  return {
    tree: listTree(projectDir, [".git"]),
    index: fs.readFileSync(path.join(projectDir, ".git", "index")).toString("base64"),
    head: fs.readFileSync(path.join(projectDir, ".git", "HEAD"), "utf8"),
  };
}

test.beforeAll(async ({ browser }) => {
  product = await startSecondInstance();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-branch-"));
  projectDir = path.join(root, "calendar-branch");
  fs.cpSync(path.join(process.cwd(), "fixtures", "calendar-project"), projectDir, { recursive: true });
  git(projectDir, ["init", "-q", "-b", "main"]);
  git(projectDir, ["add", "-A"]);
  git(projectDir, ["-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid", "commit", "-q", "-m", "calendar"]);
  bareRemote = path.join(root, "remote.git");
  git(root, ["init", "-q", "--bare", bareRemote]);
  git(projectDir, ["remote", "add", "origin", bareRemote]);
});

test.afterAll(async () => {
  await admin?.close();
  await product?.stop();
});

test("a study on a project that is a git repository", async () => {
  await page.goto(product.printedUrl);
  await page.goto(`${product.origin}/setup`);
  await page.getByLabel("OpenAI API key").fill(KEY);
  await page.getByRole("button", { name: "Store OpenAI key" }).click();
  await expect(page.getByText("Stored. New runs use it; it is not shown again.")).toBeVisible();
  const state = { origin: product.origin } as E2eState;
  projectUrl = await addProjectAndPrepare(page, state, projectDir);
  const projectId = projectUrl.split("/").pop() ?? "";
  const study = await api<{ id: string }>(
    "studies.create",
    {
      projectId,
      title: "Branch the calendar",
      taskPrompt: "Implement every function in src/calendar.js so that the tests in test/ pass.",
      testCommand: "node --test",
      testFiles: [{ source: "project", path: "test/calendar.test.js" }],
      configurations: [{ harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 }],
    },
    "POST",
  );
  await expect
    .poll(async () => (await api<StudyAnswer>("studies.get", { studyId: study.id })).state, { timeout: 240_000 })
    .toBe("done");
  const finished = await api<StudyAnswer>("studies.get", { studyId: study.id });
  expect(finished.trials[0]?.state, `${finished.trials[0]?.error}\n${product.stderr().slice(-3000)}`).toBe("succeeded");
  studyUrl = `${product.origin}/studies/${study.id}`;
  before = userState();
});

test("Apply as a branch shows the branch first, then creates and pushes it; the folder is untouched", async () => {
  await page.goto(studyUrl);
  await page.locator('[data-testid="trial-row"][data-choice="1"]').click();
  const detail = page.getByTestId("trial-detail");
  await detail.getByRole("button", { name: "Apply as a branch…" }).click();
  const dialog = page.getByRole("dialog", { name: "Apply Trial 1.1 as a branch" });
  branchName = "invariant/branch-the-calendar-1.1";
  await expect(dialog.getByTestId("branch-name")).toHaveText(branchName);
  await expect(dialog).toContainText(`the study's commit ${git(projectDir, ["rev-parse", "HEAD"]).slice(0, 12)}`);
  await dialog.getByLabel("Push to").selectOption("origin");
  await shootBoth(page, "apply-branch-dialog", SHOTS);
  await dialog.getByRole("button", { name: "Create branch and push to origin" }).click();
  await expect(dialog.getByTestId("branch-outcome")).toContainText(`Created ${branchName}`);
  const commit = (await dialog.getByTestId("branch-commit").textContent())?.trim() ?? "";
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  await expect(dialog.getByTestId("branch-pushed")).toHaveText("Pushed to origin.");
  await expect(dialog.getByTestId("result-branch")).toContainText(branchName);
  await shootBoth(page, "apply-branch-created", SHOTS);
  expect(git(projectDir, ["rev-parse", `refs/heads/${branchName}`]).trim()).toBe(commit);
  expect(git(bareRemote, ["rev-parse", `refs/heads/${branchName}`]).trim()).toBe(commit);
  expect(git(projectDir, ["diff", "--name-only", `${commit}^`, commit]).trim()).toBe("src/calendar.js");
  expect(git(projectDir, ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("main");
  expect(userState()).toEqual(before);
  await dialog.getByRole("button", { name: "Close" }).click();
});

test("the project's Result branches list it; Remove deletes it from the repository", async () => {
  await page.goto(projectUrl);
  const panel = page.getByRole("region", { name: "Result branches" });
  const row = panel.getByTestId("result-branch").filter({ hasText: branchName });
  await expect(row).toContainText("pushed to origin");
  await expect(row).toContainText("Trial 1.1 of Branch the calendar");
  await row.scrollIntoViewIfNeeded();
  await shootBoth(page, "apply-branch-project-list", SHOTS);
  await row.getByRole("button", { name: "Remove" }).click();
  await panel.getByRole("button", { name: "Remove branch" }).click();
  await expect(row).toHaveAttribute("data-removed", "true");
  await expect(row).toContainText("removed");
  expect(git(projectDir, ["for-each-ref", `refs/heads/${branchName}`])).toBe("");
  expect(userState()).toEqual(before);
});
