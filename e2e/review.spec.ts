import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";

/**
 * The trial review and compare pages on a real study (the calendar fixture on the mock model: fix-all,
 * fix-some, fix-none): the file tree, Monaco's diff of both sides (served from our origin, nothing
 * fetched elsewhere), inline, the transcript, the tests, the patch download, and a comparison of two
 * trials. Its own copy of the fixture (`review-demo`), so the study spec's project stays alone.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

let state: E2eState;
let admin: BrowserContext;
let page: Page;
let studyId = "";
const trialIds: Record<string, string> = {};
const outside: string[] = [];
/** What the page's Content-Security-Policy refused (Chromium says so on the console), and the web workers it started. */
const refusedByPolicy: string[] = [];
const workers: string[] = [];

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(state.origin) && !url.startsWith("data:") && !url.startsWith("blob:")) outside.push(url);
  });
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
  });
  page.on("worker", (worker) => workers.push(worker.url()));
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

test("a finished study of three configurations to review", async () => {
  const projectDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-review-")), "review-demo");
  fs.cpSync(state.calendarDir, projectDir, { recursive: true });
  await page.goto(`${state.origin}/projects`);
  await page.getByLabel("Project directory on this host").fill(projectDir);
  await page.getByRole("button", { name: "Add project" }).click();
  await page
    .getByRole("list", { name: "Projects" })
    .getByRole("link", { name: /review-demo/ })
    .click();
  const panel = page.getByRole("region", { name: "Environment" });
  await panel.getByRole("button", { name: "Prepare environment" }).click();
  await expect(
    panel.getByRole("table", { name: "Environment versions" }).getByRole("row", { name: /v1 active/ }),
  ).toContainText("ready", { timeout: 120_000 });

  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByLabel("Title").fill("Review the calendar");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Model 1").fill("calendar-fix-all");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 2").fill("calendar-fix-some");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 3").fill("calendar-fix-none");
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  studyId = new URL(page.url()).pathname.split("/").pop() ?? "";

  for (const [choice, name] of [
    ["1", "fix-all"],
    ["2", "fix-some"],
    ["3", "fix-none"],
  ] as const) {
    const row = page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
    await expect(row).toHaveAttribute("data-state", "succeeded", { timeout: 180_000 });
    trialIds[name] = (await row.getAttribute("data-trial-id")) ?? "";
  }
  await expect(page.getByRole("link", { name: "Compare trials" })).toBeVisible();
});

test("the fix-some review: the file tree, Monaco's diff of both sides, inline", async () => {
  await page.goto(`${state.origin}/studies/${studyId}/trials/${trialIds["fix-some"]}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("calendar-fix-some");
  await expect(page.getByTestId("review-verdict")).toHaveText("13/23");
  const tree = page.getByRole("list", { name: "Changed files" });
  await expect(tree.getByTestId("changed-file")).toHaveCount(1);
  await expect(tree.getByTestId("changed-file")).toHaveAttribute("data-path", "src/calendar.js");

  const diff = page.getByTestId("diff-editor");
  await expect(diff).toHaveAttribute("data-path", "src/calendar.js");
  // the rendered text of both sides: the snapshot's stubs on the left, the trial's code on the right
  await expect(diff.locator(".editor.original .view-lines").last()).toContainText(/not.implemented/);
  await expect(diff.locator(".editor.modified .view-lines").last()).toContainText(/RangeError/);
  await expect(diff.locator(".monaco-diff-editor")).toHaveClass(/side-by-side/);

  await page.getByRole("checkbox", { name: "Inline" }).check();
  await expect(diff).toHaveAttribute("data-layout", "inline");
  await expect(diff.locator(".monaco-diff-editor")).not.toHaveClass(/side-by-side/);
  await expect(diff.locator(".editor.modified")).toContainText(/RangeError/);
  await page.getByRole("checkbox", { name: "Inline" }).uncheck();
  await expect(diff.locator(".monaco-diff-editor")).toHaveClass(/side-by-side/);
  expect(outside, "Monaco and its workers load from the app's own origin").toEqual([]);
  // the page's CSP (frame-ancestors 'none', scripts and workers from our origin) lets Monaco run its workers
  expect(refusedByPolicy, "nothing refused by the Content-Security-Policy").toEqual([]);
  expect(workers.length, "Monaco started its web worker").toBeGreaterThan(0);
});

test("its transcript shows the commands it ran; its tests list the failures first", async () => {
  await page.getByRole("tab", { name: "Transcript" }).click();
  const transcript = page.getByRole("region", { name: "Transcript" });
  const command = transcript.getByTestId("transcript-command").filter({ hasText: "cat src/calendar.js" });
  await expect(command).toBeVisible();
  await expect(command.getByTestId("command-exit")).toHaveText("exit 0");
  await command.locator("summary").click();
  await expect(command.locator("pre")).toContainText("not implemented");
  await expect(transcript).toContainText("I implemented isLeapYear");

  await page.getByRole("tab", { name: "Tests" }).click();
  const rows = page.getByRole("table", { name: "Test results" }).getByTestId("test-result");
  await expect(rows).toHaveCount(23);
  await expect(rows.first()).toHaveAttribute("data-status", "failed");
  await expect(rows.last()).toHaveAttribute("data-status", "passed");
});

test("the patch downloads as a git diff of the trial's changes", async () => {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download patch" }).click(),
  ]);
  const text = fs.readFileSync(await download.path(), "utf8");
  expect(download.suggestedFilename()).toMatch(/\.patch$/);
  expect(text).toContain("diff --git a/src/calendar.js b/src/calendar.js");
  expect(text).toContain("+function parse(isoDate) {");
});

test("a trial that changed nothing says so", async () => {
  await page.goto(`${state.origin}/studies/${studyId}/trials/${trialIds["fix-none"]}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("calendar-fix-none");
  await expect(page.getByText("This trial changed no files.")).toBeVisible();
  await expect(page.getByTestId("diff-editor")).toHaveCount(0);
});

test("compare fix-all with fix-some: the matrix, then one file's A-vs-B diff", async () => {
  await page.goto(`${state.origin}/studies/${studyId}/compare?trials=${trialIds["fix-all"]},${trialIds["fix-some"]}`);
  const headers = page.getByTestId("compare-trial");
  await expect(headers).toHaveCount(2);
  await expect(headers.first()).toContainText("23/23");
  await expect(headers.last()).toContainText("13/23");
  const matrix = page.getByRole("table", { name: "Compare matrix" });
  const row = matrix.locator('tbody tr[data-path="src/calendar.js"]');
  await expect(row.locator("[data-kind]")).toHaveCount(2);

  await row.getByRole("button", { name: /calendar-fix-some.*open its diff/ }).click();
  const diff = page.getByTestId("diff-editor");
  await expect(diff).toHaveAttribute("data-path", "src/calendar.js");
  // the first hunk: fix-all parses with a checked pattern, fix-some splits the string unchecked
  await expect(diff.locator(".editor.original")).toContainText(/RangeError/);
  await expect(diff.locator(".editor.modified")).toContainText(/isoDate\.split/);

  await page.getByLabel("A (left)").selectOption("snapshot");
  await expect(page).toHaveURL(/left=snapshot/);
  // against the snapshot, the first hunk is parse: it threw "not implemented" before fix-some
  await expect(diff.locator(".editor.original")).toContainText(/not.implemented/);
  await expect(diff.locator(".editor.modified")).toContainText(/isoDate\.split/);

  // the selection lives in the URL: the box shows checked once the page has navigated
  const fixNone = page.getByRole("checkbox", { name: /calendar-fix-none/ });
  await fixNone.click();
  await expect(fixNone).toBeChecked();
  await expect(headers).toHaveCount(3);
  await expect(row.locator("td")).toHaveCount(3);
  expect(outside).toEqual([]);
});

test("a trial that changed test configuration: its study row and its review warn before the diff", async () => {
  await page.goto(`${state.origin}/projects`);
  await page
    .getByRole("list", { name: "Projects" })
    .getByRole("link", { name: /review-demo/ })
    .click();
  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByLabel("Title").fill("Steer the calendar tests");
  await page.getByLabel("Task").fill("Make the tests pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Harness 1").selectOption("command");
  await page
    .getByLabel("Command 1")
    .fill(
      "printf 'import pytest\\n' > conftest.py && printf '{}\\n' > tsconfig.json && mkdir -p .cache && printf x > .cache/planted",
    );
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  const steeringStudy = new URL(page.url()).pathname.split("/").pop() ?? "";
  const row = page.locator('[data-testid="trial-row"][data-choice="1"]');
  await expect(row).toHaveAttribute("data-state", "succeeded", { timeout: 180_000 });
  await expect(row.getByTestId("trial-test-steering")).toHaveText("⚠ test config changed");
  await expect(row.getByTestId("trial-test-steering")).toHaveAttribute("title", /conftest\.py, tsconfig\.json/);
  const trialId = (await row.getAttribute("data-trial-id")) ?? "";
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`study-test-steering-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.goto(`${state.origin}/studies/${steeringStudy}/trials/${trialId}`);
  const warning = page.getByTestId("test-steering-warning");
  await expect(warning).toContainText("Test configuration changed: conftest.py, tsconfig.json");
  await expect(warning).toContainText("conftest.py (added: pytest hooks and fixtures)");
  await expect(warning).toContainText("tsconfig.json (added: TypeScript compiler configuration)");
  // above the changed files and the diff
  const tree = page.getByRole("list", { name: "Changed files" });
  await expect(tree.getByTestId("changed-file")).toHaveCount(2);
  // what the diff left out (an always-excluded .cache) is listed, not reviewed and not evaluated
  const leftOut = page.getByTestId("left-out");
  await expect(leftOut).toContainText("1 new path left out by ignore rules (not in the diff, not evaluated)");
  await leftOut.locator("summary").click();
  await expect(leftOut.getByRole("listitem")).toHaveText([".cache"]);
  const [warningBox, treeBox] = [await warning.boundingBox(), await tree.boundingBox()];
  expect((warningBox?.y ?? 0) + (warningBox?.height ?? 0)).toBeLessThanOrEqual(treeBox?.y ?? 0);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`review-test-steering-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 720 });

  // and the fix-all trial of the first study, which changed only src/calendar.js, carries no warning
  await page.goto(`${state.origin}/studies/${studyId}/trials/${trialIds["fix-all"]}`);
  await expect(page.getByTestId("review-verdict")).toHaveText("23/23");
  await expect(page.getByTestId("test-steering-warning")).toHaveCount(0);
});
