import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import {
  addProjectAndPrepare,
  adminQuery,
  copyCalendarProject,
  createCalendarStudy,
  createViewerLink,
  postMutations,
} from "./keep-result-support";

/**
 * Issue 12's acceptance in the browser, on the real product (web process, worker, Docker, the real Codex TUI
 * against the product's own mock model):
 * - Continue a result: from the calendar study's fix-some trial, "Continue in a session…" opens a private copy
 *   of its workspace in its result image; a shell there sees the trial's files; finished, the session's page
 *   lists the changed files and applying them writes them into the project. Resuming the trial's own Codex
 *   thread shows the agent's conversation and records its thread id. A viewer gets no button and is refused.
 * - A Codex TUI session in direct mode (mock script `session-chat`): a prompt typed in the browser terminal,
 *   the scripted reply and the file it wrote in the project; `/exit`; resume shows the conversation and a second
 *   prompt continues the same thread; finish leaves no session container.
 * Every session started here is finished, so later specs see none running.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

interface TrialFacts {
  id: string;
  choice: number;
  workspaceId: string | null;
  threadId: string | null;
  committedImageId: string | null;
}
interface SessionFacts {
  state: string;
  threadId: string | null;
  fromTrialId: string | null;
  mode: string;
  workspaceId: string | null;
}

let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectDir: string;
let studyUrl: string;
let studyId: string;
let trials: Record<"fixAll" | "fixSome" | "fixNone", TrialFacts>;
const started: string[] = [];

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
  projectDir = copyCalendarProject(state, "calendar-continue");
  // a project belongs to a person, not to root: a direct session runs as the directory's owner
  execFileSync("chown", ["-R", "1000:1000", projectDir]);
});

test.afterAll(async () => {
  // whatever failed, leave no session running for the specs after this one
  for (const sessionId of started)
    await postMutations(page, { finish: ["sessions.finish", { sessionId }] }).catch(() => undefined);
  await admin.close();
});

const sessionContainers = (sessionId: string) =>
  execFileSync("docker", ["ps", "-aq", "--filter", `label=invariant.session=${sessionId}`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
const session = (sessionId: string) => adminQuery<SessionFacts>(state, "sessions.get", { sessionId });
const terminalText = (p: Page) => p.getByTestId("terminal").locator(".xterm-rows");

/** The session page opened by a start: its id, remembered for the clean-up. */
async function openedSession(p: Page): Promise<string> {
  await expect(p).toHaveURL(/\/sessions\/[\w-]+$/, { timeout: 60_000 });
  const sessionId = new URL(p.url()).pathname.split("/").pop() ?? "";
  started.push(sessionId);
  await expect(p.getByText("Connecting to the session…")).toHaveCount(0, { timeout: 30_000 });
  return sessionId;
}

/** Keystrokes as a person types them: the text, then Enter on its own (Enter inside a burst is a pasted newline). */
async function typeLine(p: Page, text: string) {
  await p.getByTestId("terminal").click();
  await p.keyboard.type(text);
  await p.waitForTimeout(300);
  await p.keyboard.press("Enter");
}

async function finishFromPage(p: Page, sessionId: string) {
  await p.getByRole("button", { name: "Finish…" }).click();
  await p.getByRole("button", { name: "Finish: remove its container" }).click();
  await expect(p.getByTestId("session-state")).toHaveText("finished", { timeout: 60_000 });
  expect(sessionContainers(sessionId)).toEqual([]);
}

test("the calendar study to continue from runs on a project of its own", async () => {
  await addProjectAndPrepare(page, state, projectDir);
  studyUrl = await createCalendarStudy(page, "calendar-continue", "Continue a calendar result");
  studyId = new URL(studyUrl).pathname.split("/").pop() ?? "";
  const study = await adminQuery<{ trials: TrialFacts[] }>(state, "studies.get", { studyId });
  const byChoice = (choice: number) => study.trials.find((trial) => trial.choice === choice)!;
  trials = { fixAll: byChoice(1), fixSome: byChoice(2), fixNone: byChoice(3) };
  expect(trials.fixSome).toMatchObject({ workspaceId: expect.any(String), committedImageId: expect.any(String) });
  expect(trials.fixSome.threadId).toMatch(/^[0-9a-f-]{36}$/);
});

test("a viewer sees no Continue button, and the server refuses the start", async ({ browser }) => {
  const link = await createViewerLink(page, state, "Continue watcher");
  const viewer = await browser.newContext();
  try {
    const viewerPage = await viewer.newPage();
    await viewerPage.goto(link);
    await viewerPage.goto(`${state.origin}/studies/${studyId}/trials/${trials.fixSome.id}`);
    await expect(viewerPage.getByRole("link", { name: "Download patch" })).toBeVisible();
    await expect(viewerPage.getByRole("button", { name: /Continue in a session/ })).toHaveCount(0);
    const answers = await postMutations(viewerPage, {
      start: ["sessions.start", { projectId: "any", fromTrialId: trials.fixSome.id, kind: "shell" }],
    });
    expect(answers).toEqual({ start: "403 FORBIDDEN" });
  } finally {
    await viewer.close();
  }
});

test("continue fix-some in a shell: it sees the trial's files; finished, its result lists them and applies", async () => {
  await page.goto(`${state.origin}/studies/${studyId}/trials/${trials.fixSome.id}`);
  await expect(page.getByTestId("review-state")).toHaveAttribute("data-state", "succeeded");
  const button = page.getByRole("button", { name: "Continue in a session…" });
  await screenshot(page, "continue-button-review");
  await button.click();
  const dialog = page.getByRole("dialog", { name: "Continue trial 2.1 in a session" });
  const resume = dialog.getByLabel(/Codex, resuming the agent's conversation/);
  await expect(resume).toBeChecked();
  await expect(dialog).toContainText(`Thread ${trials.fixSome.threadId?.slice(0, 8)}`);
  await dialog.getByLabel("A shell").check();
  await screenshot(page, "continue-dialog");
  await dialog.getByRole("button", { name: "Start session" }).click();
  const sessionId = await openedSession(page);
  // the trial it continues, by its title, as a link
  await expect(page.getByTestId("continued-trial")).toHaveAttribute(
    "href",
    new RegExp(`/trials/${trials.fixSome.id}$`),
  );
  expect(await session(sessionId)).toMatchObject({ mode: "private", fromTrialId: trials.fixSome.id, threadId: null });

  // the trial's files: fix-some implemented four functions, so four of the eight stubs are left
  await typeLine(page, "echo continued > CONTINUED.md; echo stubs-left-$(grep -c 'not implemented' src/calendar.js)");
  await expect(terminalText(page)).toContainText("stubs-left-4");
  await finishFromPage(page, sessionId);

  const changed = page.getByRole("list", { name: "Changed files" });
  await expect(changed).toContainText("src/calendar.js");
  await expect(changed).toContainText("CONTINUED.md");
  // the same reviewed plan as a trial's, in the same dialog
  await page.getByRole("button", { name: "Apply to project…" }).click();
  const applying = page.getByRole("dialog", { name: "Apply the session's changes to calendar-continue" });
  await applying.getByRole("button", { name: "Apply 2 changes" }).click();
  await expect(applying.getByTestId("apply-outcome")).toHaveAttribute("data-outcome", "applied");
  await expect(applying).toContainText("Applied: 2 files written to the project.");
  await applying.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("trial-applied")).toContainText("Applied on");
  expect(fs.readFileSync(path.join(projectDir, "CONTINUED.md"), "utf8")).toBe("continued\n");
  const calendar = fs.readFileSync(path.join(projectDir, "src", "calendar.js"), "utf8");
  expect(calendar.match(/not implemented/g)).toHaveLength(4);
  expect(calendar).toContain("return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;");
});

test("continue fix-some resuming its thread: Codex shows the agent's conversation and records the trial's thread", async () => {
  await page.goto(studyUrl);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-connected", "true");
  await page.locator('[data-testid="trial-row"][data-choice="2"]').click();
  const detail = page.getByTestId("trial-detail");
  const button = detail.getByRole("button", { name: "Continue in a session…" });
  await button.scrollIntoViewIfNeeded();
  await screenshot(page, "continue-button-study", detail);
  await button.click();
  const dialog = page.getByRole("dialog", { name: "Continue trial 2.1 in a session" });
  await expect(dialog.getByLabel(/Codex, resuming the agent's conversation/)).toBeChecked();
  await dialog.getByRole("button", { name: "Start session" }).click();
  const sessionId = await openedSession(page);
  // the agent's last message, shown again by `codex resume <thread>`
  await expect(terminalText(page)).toContainText("I implemented isLeapYear", { timeout: 60_000 });
  await expect(page.getByText(trials.fixSome.threadId ?? "no thread")).toBeVisible();
  expect(await session(sessionId)).toMatchObject({ threadId: trials.fixSome.threadId, fromTrialId: trials.fixSome.id });
  await finishFromPage(page, sessionId);
});

test("refusals say why: a deleted workspace, a removed result image", async () => {
  fs.rmSync(path.join(state.dataDir, "workspaces", trials.fixAll.workspaceId ?? "none"), {
    recursive: true,
    force: true,
  });
  await page.goto(`${state.origin}/studies/${studyId}/trials/${trials.fixAll.id}`);
  await page.getByRole("button", { name: "Continue in a session…" }).click();
  let dialog = page.getByRole("dialog", { name: "Continue trial 1.1 in a session" });
  await dialog.getByLabel("A shell").check();
  await dialog.getByRole("button", { name: "Start session" }).click();
  await expect(dialog).toContainText(`workspace ${trials.fixAll.workspaceId} was deleted`);
  await dialog.getByRole("button", { name: "Cancel" }).click();

  execFileSync("docker", ["rmi", "--force", trials.fixNone.committedImageId ?? "none"]);
  await page.goto(`${state.origin}/studies/${studyId}/trials/${trials.fixNone.id}`);
  await page.getByRole("button", { name: "Continue in a session…" }).click();
  dialog = page.getByRole("dialog", { name: "Continue trial 3.1 in a session" });
  await dialog.getByRole("button", { name: "Start session" }).click();
  await expect(dialog).toContainText("is no longer in Docker");
  await expect(page).toHaveURL(/\/trials\//);
});

test("a Codex TUI session in the project: prompt, reply and file; /exit; resume continues the thread; finish", async () => {
  await page.goto(`${state.origin}/sessions`);
  const form = page.getByRole("form", { name: "Start a session" });
  await form.getByLabel("Project", { exact: true }).selectOption({ label: "calendar-continue" });
  await form.getByLabel("Codex", { exact: true }).check();
  await form.getByLabel(/Direct/).check();
  await form.getByLabel("Model", { exact: true }).fill("session-chat");
  await form.getByRole("button", { name: "Start session" }).click();
  const sessionId = await openedSession(page);
  await expect(terminalText(page)).toContainText("for shortcuts", { timeout: 60_000 });
  await typeLine(page, "Please write the file.");
  await expect(terminalText(page)).toContainText("I wrote from-codex.txt for you.", { timeout: 60_000 });
  expect(fs.readFileSync(path.join(projectDir, "from-codex.txt"), "utf8")).toBe("written in a session\n");

  await typeLine(page, "/exit");
  await expect(page.getByTestId("session-state")).toHaveText("exited", { timeout: 30_000 });
  const first = await session(sessionId);
  expect(first.threadId).toMatch(/^[0-9a-f-]{36}$/);
  expect(sessionContainers(sessionId)).toHaveLength(1);

  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByTestId("session-state")).toHaveText("running", { timeout: 30_000 });
  await expect(terminalText(page)).toContainText("I wrote from-codex.txt for you.", { timeout: 60_000 });
  await expect(terminalText(page)).toContainText("for shortcuts", { timeout: 60_000 });
  await typeLine(page, "Do you remember?");
  await expect(terminalText(page)).toContainText("Still the same conversation", { timeout: 60_000 });
  await typeLine(page, "/exit");
  await expect(page.getByTestId("session-state")).toHaveText("exited", { timeout: 30_000 });
  expect((await session(sessionId)).threadId).toBe(first.threadId);

  await finishFromPage(page, sessionId);
  for (const id of started) expect(sessionContainers(id), `session ${id}`).toEqual([]);
});

/** Screenshots for the docs when CONTINUE_SCREENSHOTS names a directory; else nothing. */
async function screenshot(p: Page, name: string, element?: ReturnType<Page["locator"]>) {
  const dir = process.env.CONTINUE_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  if (element) await element.screenshot({ path: path.join(dir, `${name}.png`) });
  else await p.screenshot({ path: path.join(dir, `${name}.png`) });
}
