import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import {
  addProjectAndPrepare,
  copyCalendarProject,
  createCalendarStudy,
  listTree,
  type TreeListing,
} from "./keep-result-support";

/**
 * A trial just applied reads as applied, not as in conflict with itself (issue 26, point 5): on the offline
 * calendar study, apply fix-all; the success message offers Undo; the trial's row says "applied · Undo";
 * reopening Apply says "Applied on … by admin" with Undo instead of "Undo or commit your edits"; Undo from
 * there restores the project byte for byte and the plan is applicable again. At 390 px the same, undone from
 * the review page. The fix-none trial changed nothing: it offers neither Apply nor a patch ("No changes").
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SHOTS = process.env.APPLY_UNDO_SCREENSHOTS ?? "/tmp/shots-apply-undo";
let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectDir: string;
let studyUrl: string;
let original: TreeListing;

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
  projectDir = copyCalendarProject(state, "calendar-undo");
});

test.afterAll(async () => {
  await admin.close();
});

const trialRow = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);

async function openTrial(choice: string) {
  await page.goto(studyUrl);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-connected", "true");
  await trialRow(choice).click();
  const detail = page.getByTestId("trial-detail");
  await expect(detail).toBeVisible();
  return detail;
}

/** Opens Apply on trial 1's panel, applies its one change and returns the dialog showing the outcome. */
async function applyFixAll() {
  const detail = await openTrial("1");
  await detail.getByRole("button", { name: "Apply to project…" }).click();
  const dialog = page.getByRole("dialog", { name: /Apply trial 1\.1/ });
  await dialog.getByRole("button", { name: "Apply 1 change" }).click();
  await expect(dialog.getByTestId("apply-outcome")).toHaveAttribute("data-outcome", "applied");
  return dialog;
}

test("a study with an applicable trial (fix-all) and one that changed nothing (fix-none)", async () => {
  await addProjectAndPrepare(page, state, projectDir);
  studyUrl = await createCalendarStudy(page, "calendar-undo", "Apply and undo");
  original = listTree(projectDir);
});

test("Review changes leads; a trial with no changes offers neither Apply nor a patch", async () => {
  let detail = await openTrial("1");
  const actions = detail.getByTestId("keep-result-actions");
  await expect(actions.getByTestId("trial-review-primary")).toHaveText("Review changes");
  await expect(actions.getByRole("button", { name: "Apply to project…" })).toBeVisible();
  detail = await openTrial("3");
  await expect(detail.getByTestId("trial-no-changes")).toHaveText("No changes");
  await expect(detail.getByRole("button", { name: "Apply to project…" })).toHaveCount(0);
  await expect(detail.getByTestId("trial-review-primary")).toHaveCount(0);
  await shot("1280-study-no-changes");
  const trialId = (await detail.getAttribute("data-trial-id")) ?? "";
  await page.goto(`${studyUrl}/trials/${trialId}`);
  await expect(page.getByTestId("review-no-changes")).toHaveText("No changes");
  await expect(page.getByRole("link", { name: "Download patch" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Apply to project…" })).toHaveCount(0);
  await expect(page.getByText("No changes", { exact: true })).toHaveCount(1);
  await shot("1280-review-no-changes");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot("390-review-no-changes");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("1280 px: apply, the success message offers Undo, reopening Apply says applied (not conflicts), Undo from there", async () => {
  let dialog = await applyFixAll();
  await expect(dialog.getByRole("button", { name: "Undo" })).toBeVisible();
  await shot("1280-apply-success");
  await dialog.getByRole("button", { name: "Done" }).click();
  expect(listTree(projectDir)).not.toEqual(original);

  const marker = trialRow("1").getByTestId("trial-applied");
  await expect(marker).toContainText("applied");
  await expect(marker.getByRole("button", { name: "Undo" })).toBeVisible();
  const detail = page.getByTestId("trial-detail");
  await expect(detail.getByTestId("keep-result-actions")).toContainText(/Applied on .+ by admin/);
  await shot("1280-study-applied");

  await detail.getByRole("button", { name: "Apply to project…" }).click();
  dialog = page.getByRole("dialog", { name: /Apply trial 1\.1/ });
  const applied = dialog.getByTestId("plan-applied");
  await expect(applied).toContainText(/Applied on .+ by admin/);
  await expect(dialog.getByTestId("plan-conflicts")).toHaveCount(0);
  await expect(dialog).not.toContainText("Undo or commit your edits");
  await shot("1280-apply-reopened");
  await applied.getByRole("button", { name: "Undo" }).click();
  await expect(dialog.getByTestId("undo-outcome")).toHaveAttribute("data-outcome", "undone");
  await expect(dialog.getByRole("button", { name: "Apply 1 change" })).toBeEnabled();
  await expect(dialog.getByTestId("plan-conflicts")).toHaveCount(0);
  await shot("1280-undone-in-dialog");
  expect(listTree(projectDir)).toEqual(original);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(trialRow("1").getByTestId("trial-applied")).toHaveCount(0);
});

test("390 px: Undo in the success message, then applied · Undo on the review page", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  let dialog = await applyFixAll();
  await shot("390-apply-success");
  await dialog.getByRole("button", { name: "Undo" }).click();
  await expect(dialog.getByTestId("undo-outcome")).toHaveAttribute("data-outcome", "undone");
  expect(listTree(projectDir)).toEqual(original);
  await dialog.getByRole("button", { name: "Done" }).click();

  dialog = await applyFixAll();
  await dialog.getByRole("button", { name: "Done" }).click();
  await page.getByTestId("trial-detail").getByRole("button", { name: "Apply to project…" }).click();
  dialog = page.getByRole("dialog", { name: /Apply trial 1\.1/ });
  await expect(dialog.getByTestId("plan-applied")).toContainText(/Applied on .+ by admin/);
  await shot("390-apply-reopened");
  await dialog.getByRole("button", { name: "Close" }).click();

  const trialId = (await page.getByTestId("trial-detail").getAttribute("data-trial-id")) ?? "";
  await page.goto(`${studyUrl}/trials/${trialId}`);
  const applied = page.getByTestId("keep-result-actions").getByTestId("trial-applied");
  await expect(applied).toContainText(/Applied on .+ by admin/);
  await shot("390-review-applied");
  await applied.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("keep-result-actions").getByTestId("trial-applied")).toHaveCount(0);
  expect(listTree(projectDir)).toEqual(original);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${studyUrl}/trials/${trialId}`);
  await expect(page.getByRole("link", { name: "Download patch" })).toBeVisible();
  await shot("1280-review-not-applied");
});
