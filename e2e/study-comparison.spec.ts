import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject, shoot } from "./keep-result-support";

/**
 * Honest comparisons (issue 14): a study of two configurations with four repeats each on the calendar
 * fixture — fix-all passes every time, fix-none never — shows each pass rate with its error bar and 95 %
 * interval, and the pair compared in a sentence that names the winner, the difference and the method.
 * Named to run after first-minutes.spec.ts, which needs an empty dashboard (specs run in file-name order).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

let state: E2eState;
let admin: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

test("four repeats each: error bars, intervals and a comparison that names the better configuration", async () => {
  const projectDir = copyCalendarProject(state, "calendar-compare");
  await addProjectAndPrepare(page, state, projectDir);
  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: "calendar-compare" });
  await page.getByLabel("Title").fill("Fix-all against fix-none, four times each");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Model 1").fill("calendar-fix-all");
  await page.getByLabel("Repeats 1").fill("4");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 2").fill("calendar-fix-none");
  await page.getByLabel("Repeats 2").fill("4");
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  const rows = page.getByTestId("trial-row");
  await expect(rows).toHaveCount(8);
  await expect(page.getByTestId("study-counts")).toContainText("8/8 finished", { timeout: 240_000 });

  const aggregate = (choice: string) => page.locator(`[data-testid="aggregate-row"][data-choice="${choice}"]`);
  // 4/4: Wilson 51–100 %; 0/4: 0–49 %
  const allRate = aggregate("1").getByTestId("aggregate-pass-rate");
  await expect(allRate).toContainText("100%(4/4)");
  await expect(allRate).toContainText("95 % CI 51–100 %");
  await expect(allRate.getByRole("img", { name: /pass rate: 100%, 95 % interval 51–100%/ })).toBeVisible();
  const noneRate = aggregate("2").getByTestId("aggregate-pass-rate");
  await expect(noneRate).toContainText("0%(0/4)");
  await expect(noneRate).toContainText("95 % CI 0–49 %");
  await expect(aggregate("2").getByTestId("aggregate-mean-fraction")).toContainText("0%");

  const comparison = page.getByRole("region", { name: "Comparisons" }).getByTestId("comparison");
  await expect(comparison).toHaveCount(1);
  await expect(comparison).toHaveAttribute("data-verdict", "better");
  await expect(comparison).toHaveText(
    /^Configuration 1 \(calendar-fix-all · medium\) passes more often than Configuration 2 \(calendar-fix-none · medium\): 4\/4 vs 0\/4, difference 100 points, 95 % CI \d+ to 100 points, Fisher's exact p = 0\.029\.$/,
  );
  const panel = page.getByRole("region", { name: "Per configuration" });
  await shoot(page, "study-comparison", { element: panel });
  await shoot(page, "narrow-study-comparison", { element: panel, width: 390 });
});

test("the tests × trials heat map, the cost, and what differed between two trials' manifests", async () => {
  // still on the study of the test above
  const matrix = page.getByRole("region", { name: "Tests × trials" });
  await expect(matrix.getByTestId("test-matrix-summary")).toContainText("23 tests × 8 evaluated trials");
  await expect(matrix.getByTestId("test-matrix-summary")).toContainText("No test flips between repeats");
  await expect(matrix.getByTestId("test-matrix-row")).toHaveCount(23);
  const firstRow = matrix.getByTestId("test-matrix-row").first();
  await expect(firstRow.locator('[data-status="passed"]')).toHaveCount(4);
  await expect(firstRow.locator('[data-status="failed"]')).toHaveCount(4);
  await matrix.getByLabel("Only tests that flip").check();
  await expect(matrix.getByText("No test matches.")).toBeVisible();
  await matrix.getByLabel("Only tests that flip").uncheck();
  await matrix.getByLabel("Filter tests by name").fill("leap");
  await expect(matrix.getByTestId("test-matrix-row").first()).toContainText(/leap/i);
  await shoot(page, "study-test-matrix", { element: matrix });
  await shoot(page, "narrow-study-test-matrix", { element: matrix, width: 390 });

  // the mock models have no price: said so, never $0
  await expect(page.getByTestId("study-cost")).toContainText("unknown price");
  await expect(page.getByTestId("study-cost")).toContainText("calendar-fix-all");

  const studyUrl = page.url();
  const [first, fifth] = [page.getByTestId("trial-row").nth(0), page.getByTestId("trial-row").nth(4)];
  const ids = [await first.getAttribute("data-trial-id"), await fifth.getAttribute("data-trial-id")];
  await page.goto(`${studyUrl}/compare?trials=${ids.join(",")}`);
  const differed = page.getByRole("region", { name: "What differed" });
  const modelRow = differed.locator('[data-testid="manifest-diff-row"][data-path="configuration.model"]');
  await expect(modelRow).toContainText("calendar-fix-all");
  await expect(modelRow).toContainText("calendar-fix-none");
  // the model each provider response named, recorded by the gateway, differs too; nothing else does
  const reported = differed.locator('[data-testid="manifest-diff-row"][data-path="reportedModel"]');
  await expect(reported).toContainText("calendar-fix-none");
  await expect(differed.getByTestId("manifest-diff-row")).toHaveCount(2);
  await shoot(page, "compare-what-differed", { element: differed });

  // New study like this: the form filled from the study
  await page.goto(studyUrl);
  await page.getByTestId("new-study-like-this").click();
  await expect(page.getByTestId("new-study-source")).toContainText("Fix-all against fix-none, four times each");
  await expect(page.getByLabel("Title")).toHaveValue("Fix-all against fix-none, four times each (again)");
  await expect(page.getByLabel("Model 2")).toHaveValue("calendar-fix-none");
  await expect(page.getByLabel("Repeats 2")).toHaveValue("4");
});
