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
  listTree,
  monacoSide,
  postMutations,
  runHostTests,
  shoot,
  type TreeListing,
} from "./keep-result-support";

/**
 * Keeping a result from the dashboard (issue 11, acceptance): on the offline calendar study (mock models
 * calendar-fix-all / -some / -none, the real Codex binary in containers), choose fix-all, apply it through the
 * reviewed plan (the project then equals the trial's workspace and passes 23/23 on the host), undo it (the project
 * is byte-identical to before), see a plan refused after an edit (nothing written, the file named), see an undo
 * refused after an edit, and a viewer who sees the choice but no choose / apply / undo and is refused by the server.
 * On the way: the fix-some trial's review (file tree, both sides of the Monaco diff, inline, transcript) and the
 * compare page's A-vs-B diff of fix-all and fix-some.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const CALENDAR = "src/calendar.js";
let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectDir: string;
let projectUrl: string;
let studyUrl: string;
let studyId: string;
let fixAll: { id: string; workspacePath: string };
let fixSomeId: string;
let original: TreeListing;

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
  await page.goto(state.printedUrl);
  projectDir = copyCalendarProject(state, "calendar-keep");
});

test.afterAll(async () => {
  await admin.close();
});

const trialRow = (p: Page, choice: string) => p.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);

/** Opens a trial's panel on the study page and returns it. */
async function openTrial(p: Page, choice: string) {
  await p.goto(studyUrl);
  // the page is interactive once it is live (a click before hydration would be lost)
  await expect(p.getByTestId("live-indicator")).toHaveAttribute("data-connected", "true");
  await trialRow(p, choice).click();
  const detail = p.getByTestId("trial-detail");
  await expect(detail).toBeVisible();
  return detail;
}

test("the calendar study runs on a project of its own; the project's apply history starts empty", async () => {
  projectUrl = await addProjectAndPrepare(page, state, projectDir);
  const history = page.getByRole("region", { name: "Apply history" });
  await expect(history.getByTestId("apply-history-empty")).toContainText("Nothing applied yet");
  await shoot(page, "apply-history-empty", { fullPage: true });
  studyUrl = await createCalendarStudy(page, "calendar-keep", "Keep a calendar result");
  studyId = new URL(studyUrl).pathname.split("/").pop() ?? "";
  const study = await adminQuery<{ trials: { id: string; choice: number; workspaceId: string | null }[] }>(
    state,
    "studies.get",
    { studyId },
  );
  const trial = study.trials.find((candidate) => candidate.choice === 1);
  fixSomeId = study.trials.find((candidate) => candidate.choice === 2)?.id ?? "";
  expect(trial?.workspaceId).toBeTruthy();
  const workspace = await adminQuery<{ path: string }>(state, "workspaces.get", { workspaceId: trial?.workspaceId });
  fixAll = { id: trial?.id ?? "", workspacePath: workspace.path };
  original = listTree(projectDir);
  expect(runHostTests(projectDir)).toMatchObject({ pass: 0, fail: 23 });
});

test("the fix-some trial's review: its changed file, both sides in Monaco, inline, its commands; then compare it with fix-all", async () => {
  await page.goto(`${state.origin}/studies/${studyId}/trials/${fixSomeId}`);
  const files = page.getByRole("list", { name: "Changed files" }).getByTestId("changed-file");
  await expect(files).toHaveCount(1);
  await expect(files).toHaveAttribute("data-path", CALENDAR);
  await expect(files).toContainText("modified");
  const diff = page.getByTestId("diff-editor");
  await expect(diff).toHaveAttribute("data-path", CALENDAR);
  // the snapshot's stub on the left, fix-some's implementation on the right
  await expect(monacoSide(diff, "original")).toContainText('throw new Error("not implemented");');
  await expect(monacoSide(diff, "modified")).toContainText("return (year % 4 === 0 && year % 100 !== 0)");
  await shoot(page, "review");
  await page.getByRole("group", { name: "Diff view" }).getByLabel("Inline").check();
  // inline: the deleted lines are drawn inside the modified editor
  await expect(diff.locator(".editor.modified .view-zones")).toContainText('throw new Error("not implemented");');
  await shoot(page, "review-inline");
  await page.getByRole("group", { name: "Diff view" }).getByLabel("Inline").uncheck();
  await page.getByRole("tab", { name: "Transcript" }).click();
  const command = page.getByTestId("transcript-command").filter({ hasText: "cat src/calendar.js" });
  await expect(command.getByTestId("command-exit")).toHaveText("exit 0");
  await shoot(page, "review-transcript");

  await page.goto(`${state.origin}/studies/${studyId}/compare?trials=${fixAll.id},${fixSomeId}`);
  await expect(page.getByTestId("compare-trial")).toHaveCount(2);
  await page
    .getByRole("table", { name: "Compare matrix" })
    .getByRole("button", { name: CALENDAR, exact: true })
    .click();
  const compared = page.getByRole("region", { name: "File comparison" }).getByTestId("diff-editor");
  await expect(monacoSide(compared, "original")).toContainText("every date maps to a day"); // A: fix-all
  await expect(monacoSide(compared, "modified")).toContainText("Implement every function without the Date object"); // B
  await shoot(page, "compare", { fullPage: true });
});

test("choose fix-some, then fix-all instead with a note: the header, the trial row and the study list say so", async () => {
  let detail = await openTrial(page, "2");
  await detail.getByRole("button", { name: "Choose this result" }).click();
  await detail.getByRole("button", { name: "Choose", exact: true }).click();
  await expect(trialRow(page, "2").getByTestId("chosen-marker")).toBeVisible();
  await expect(page.getByTestId("chosen-result")).toContainText("Trial 2.1");

  detail = await openTrial(page, "1");
  await detail.getByRole("button", { name: "Choose this result instead" }).click();
  await detail.getByLabel(/Note/).fill("All 23 tests pass; one file changed.");
  await detail.getByRole("button", { name: "Choose", exact: true }).click();
  await expect(detail.getByTestId("trial-chosen")).toContainText("All 23 tests pass; one file changed.");
  await expect(trialRow(page, "1").getByTestId("chosen-marker")).toBeVisible();
  await expect(trialRow(page, "2").getByTestId("chosen-marker")).toHaveCount(0);
  const header = page.getByTestId("chosen-result");
  await expect(header).toContainText("Trial 1.1");
  await expect(header).toContainText("calendar-fix-all");
  await expect(header).toContainText("23/23");
  await expect(header.getByTestId("chosen-note")).toHaveText("All 23 tests pass; one file changed.");
  await expect(header.getByRole("link", { name: "Review" })).toHaveAttribute(
    "href",
    `/studies/${studyId}/trials/${fixAll.id}`,
  );
  // the note can be edited in place; choosing changed no project file
  await detail.getByRole("button", { name: "Edit note" }).click();
  await detail.getByLabel(/Note/).fill("All 23 tests pass; the smallest diff.");
  await detail.getByRole("button", { name: "Save note" }).click();
  await expect(header.getByTestId("chosen-note")).toHaveText("All 23 tests pass; the smallest diff.");
  expect(listTree(projectDir)).toEqual(original);
  await shoot(page, "study-chosen");
  await shoot(page, "study-header-chosen", { top: true });
  await shoot(page, "narrow-study-header", { top: true, width: 400 });

  await page.goto(`${state.origin}/studies`);
  const listed = page.getByTestId("study-row").filter({ hasText: "Keep a calendar result" });
  await expect(listed.getByTestId("study-chosen")).toBeVisible();
});

test("apply fix-all through its plan: the project then equals the trial's workspace and passes 23/23 on the host", async () => {
  const detail = await openTrial(page, "1");
  await detail.getByRole("button", { name: "Apply to project…" }).click();
  const dialog = page.getByRole("dialog", { name: /Apply trial 1\.1 to calendar-keep/ });
  await expect(dialog.getByTestId("plan-totals")).toContainText("1 file: 0 created, 1 modified, 0 deleted");
  const steps = dialog.getByTestId("plan-step");
  await expect(steps).toHaveCount(1);
  await expect(steps.first()).toContainText("modify");
  await expect(steps.first()).toContainText(CALENDAR);
  await expect(dialog.getByTestId("plan-conflicts")).toHaveCount(0);
  await shoot(page, "apply-plan");
  await dialog.getByRole("button", { name: "Apply 1 change" }).click();
  const outcome = dialog.getByTestId("apply-outcome");
  await expect(outcome).toHaveAttribute("data-outcome", "applied");
  await expect(outcome).toContainText("Applied: 1 file written");
  await expect(outcome.getByRole("list", { name: "Files applied" })).toContainText(CALENDAR);
  await shoot(page, "apply-outcome");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toHaveCount(0);

  // the trial changed one file (the plan above says so): the project now has its bytes (a copy workspace's
  // tree, or an overlay workspace's own layer, holds the changed file itself)
  expect(fs.readFileSync(path.join(projectDir, CALENDAR))).toEqual(
    fs.readFileSync(path.join(fixAll.workspacePath, CALENDAR)),
  );
  expect(fs.readdirSync(projectDir).filter((name) => name.startsWith(".invariant-apply"))).toEqual([]);
  const tests = runHostTests(projectDir);
  expect(tests, tests.output).toMatchObject({ pass: 23, fail: 0 });
});

test("undo from the project's apply history, after a confirmation: the project is byte-identical to before", async () => {
  await page.goto(projectUrl);
  const history = page.getByRole("region", { name: "Apply history" });
  const applied = history.getByTestId("apply-record").first();
  await expect(applied).toHaveAttribute("data-outcome", "applied");
  await expect(applied).toContainText("admin");
  await expect(applied.getByRole("link", { name: /calendar-fix-all/ })).toHaveAttribute(
    "href",
    `/studies/${studyId}/trials/${fixAll.id}`,
  );
  await applied.getByText("1 file").click();
  await expect(applied.getByRole("list", { name: "Files" })).toContainText(CALENDAR);
  await applied.getByRole("button", { name: "Undo…" }).click();
  const confirm = history.getByRole("group", { name: "Confirm undo" });
  await expect(confirm).toContainText("puts back the 1 file");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  expect(runHostTests(projectDir).pass).toBe(23); // cancelled: nothing happened
  await applied.getByRole("button", { name: "Undo…" }).click();
  await confirm.getByRole("button", { name: "Undo apply" }).click();
  await expect(history.getByTestId("undo-outcome")).toHaveAttribute("data-outcome", "undone");
  await expect(history.getByTestId("apply-record").first()).toHaveAttribute("data-outcome", "undone");
  await expect(history.getByRole("button", { name: "Undo…" })).toHaveCount(0);
  await shoot(page, "apply-history-undone", { element: history });
  expect(listTree(projectDir)).toEqual(original);
});

test("a file the trial changed is edited: the run is refused, nothing is written, and the page names the file", async () => {
  const detail = await openTrial(page, "1");
  await detail.getByRole("button", { name: "Apply to project…" }).click();
  const dialog = page.getByRole("dialog", { name: /Apply trial 1\.1/ });
  await expect(dialog.getByTestId("plan-step")).toHaveCount(1);
  await expect(dialog.getByTestId("plan-conflicts")).toHaveCount(0);
  // someone edits the file between the review and the confirmation
  fs.appendFileSync(path.join(projectDir, CALENDAR), "// a local edit\n");
  const edited = listTree(projectDir);
  await dialog.getByRole("button", { name: "Apply 1 change" }).click();
  const outcome = dialog.getByTestId("apply-outcome");
  await expect(outcome).toHaveAttribute("data-outcome", "refused");
  await expect(outcome).toContainText("Refused: nothing was written.");
  await expect(outcome.getByTestId("conflict-path")).toHaveText([CALENDAR]);
  await expect(outcome.getByRole("link", { name: "Download the patch" })).toHaveAttribute(
    "href",
    `/api/trials/${fixAll.id}/patch`,
  );
  await shoot(page, "apply-refused");
  expect(listTree(projectDir)).toEqual(edited);
  await dialog.getByRole("button", { name: "Done" }).click();

  // opened again, the plan itself shows the conflict with the file's current state, and cannot be confirmed
  await detail.getByRole("button", { name: "Apply to project…" }).click();
  const conflicts = dialog.getByTestId("plan-conflicts");
  await expect(conflicts.getByTestId("conflict-path")).toHaveText([CALENDAR]);
  await expect(conflicts).toContainText("was changed in the project since the snapshot");
  await expect(dialog.getByRole("button", { name: "Apply 1 change" })).toBeDisabled();
  await shoot(page, "apply-plan-conflicts");
  await shoot(page, "narrow-apply-plan-conflicts", { width: 400 });
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(detail).toBeVisible(); // Esc closed the dialog, not the trial panel behind it
  expect(listTree(projectDir)).toEqual(edited);
  fs.copyFileSync(path.join("fixtures", "calendar-project", CALENDAR), path.join(projectDir, CALENDAR));
  expect(listTree(projectDir)).toEqual(original);
});

test("an undo is refused after a later edit, names the file and writes nothing; reverted, it goes through", async () => {
  const detail = await openTrial(page, "1");
  await detail.getByRole("button", { name: "Apply to project…" }).click();
  const dialog = page.getByRole("dialog", { name: /Apply trial 1\.1/ });
  await dialog.getByRole("button", { name: "Apply 1 change" }).click();
  await expect(dialog.getByTestId("apply-outcome")).toHaveAttribute("data-outcome", "applied");
  const applied = fs.readFileSync(path.join(projectDir, CALENDAR));
  fs.appendFileSync(path.join(projectDir, CALENDAR), "// edited after the apply\n");
  const edited = listTree(projectDir);

  await page.goto(projectUrl);
  const history = page.getByRole("region", { name: "Apply history" });
  await history.getByRole("button", { name: "Undo…" }).click();
  await history.getByRole("button", { name: "Undo apply" }).click();
  const outcome = history.getByTestId("undo-outcome");
  await expect(outcome).toHaveAttribute("data-outcome", "refused");
  await expect(outcome).toContainText("Undo refused: nothing was written.");
  await expect(outcome.getByTestId("conflict-path")).toHaveText([CALENDAR]);
  await shoot(page, "undo-refused", { element: history });
  await shoot(page, "narrow-undo-refused", { width: 400, scrollTo: history });
  expect(listTree(projectDir)).toEqual(edited);

  fs.writeFileSync(path.join(projectDir, CALENDAR), applied);
  await history.getByRole("button", { name: "Undo…" }).click();
  await history.getByRole("button", { name: "Undo apply" }).click();
  await expect(outcome).toHaveAttribute("data-outcome", "undone");
  expect(listTree(projectDir)).toEqual(original);
});

test("a viewer sees the chosen result and the history but no choose / apply / undo, and the server refuses them", async ({
  browser,
}) => {
  const link = await createViewerLink(page, state, "Result reviewer");
  const viewer = await browser.newContext();
  try {
    const viewerPage = await viewer.newPage();
    await viewerPage.goto(link);
    await expect(viewerPage.getByText("read-only viewer")).toBeVisible();
    await viewerPage.goto(studyUrl);
    await expect(viewerPage.getByTestId("chosen-result")).toContainText("Trial 1.1");
    await expect(trialRow(viewerPage, "1").getByTestId("chosen-marker")).toBeVisible();
    await trialRow(viewerPage, "1").click();
    const detail = viewerPage.getByTestId("trial-detail");
    await expect(detail.getByTestId("trial-chosen")).toContainText("the smallest diff");
    await expect(viewerPage.getByRole("button", { name: /Choose|Apply|Edit note|Clear choice/ })).toHaveCount(0);
    await shoot(viewerPage, "viewer-study");
    await viewerPage.goto(`${state.origin}/studies/${studyId}/trials/${fixAll.id}`);
    await expect(viewerPage.getByTestId("changed-file")).toHaveAttribute("data-path", CALENDAR);
    await expect(viewerPage.getByTestId("trial-chosen")).toContainText("the smallest diff");
    await expect(viewerPage.getByRole("button", { name: /Choose|Apply|Edit note|Clear choice/ })).toHaveCount(0);
    await shoot(viewerPage, "viewer-review");
    await viewerPage.goto(projectUrl);
    const history = viewerPage.getByRole("region", { name: "Apply history" });
    await expect(history.getByTestId("apply-record")).not.toHaveCount(0);
    await expect(viewerPage.getByRole("button", { name: /Undo/ })).toHaveCount(0);
    const records = await adminQuery<{ id: string }[]>(state, "applies.history", {
      projectId: projectUrl.split("/").pop(),
    });
    const answers = await postMutations(viewerPage, {
      choose: ["studies.choose", { studyId, trialId: fixAll.id, note: "viewer" }],
      clear: ["studies.choose", { studyId, trialId: null }],
      apply: ["applies.runTrial", { trialId: fixAll.id, planHash: "0".repeat(64) }],
      undo: ["applies.undo", { recordId: records[0]?.id ?? "" }],
    });
    const forbidden = "403 FORBIDDEN";
    expect(answers).toEqual({ choose: forbidden, clear: forbidden, apply: forbidden, undo: forbidden });
  } finally {
    await viewer.close();
  }
  const study = await adminQuery<{ chosen: { trialId: string } | null }>(state, "studies.get", { studyId });
  expect(study.chosen?.trialId).toBe(fixAll.id);
  expect(listTree(projectDir)).toEqual(original);
});
