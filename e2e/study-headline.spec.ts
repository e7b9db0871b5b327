import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { shootBoth } from "./screenshots";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject } from "./keep-result-support";

/**
 * The study page leads with what matters (issue 26, points 2 and 13): while trials run, the live state
 * (progress, what runs now, elapsed) above the study's facts, which are folded; once they end, a verdict
 * headline naming each configuration and its result with the comparison advice and a one-click "Run N
 * more repeats" that adds trials to the same study; no Compare or Rerun during the preflight, without
 * trials or on a refused study. Named to run after first-minutes.spec.ts (it needs an empty dashboard).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SHOTS = process.env.HEADLINE_SCREENSHOTS ?? "";
const PROJECT = "calendar-headline";

let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectUrl: string;

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

/** Fills the new-study form for the calendar project; the models are mock scripts (fix-all, fix-some). */
async function fillStudy(title: string, testCommand: string): Promise<void> {
  await page.getByRole("link", { name: "New study" }).first().click();
  await expect(page).toHaveURL(/\/studies\/new/);
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: PROJECT });
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill(testCommand);
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Model 1").fill("calendar-fix-all");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 2").fill("calendar-fix-some");
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
}

const compareLink = () => page.getByTestId("compare-trials-link");
const rerunButton = () => page.getByTestId("rerun-study");
const facts = () => page.getByTestId("study-facts");
const rows = () => page.getByTestId("trial-row");

test("while the trials run, the live state leads, above the folded facts; no Compare or Rerun yet", async () => {
  projectUrl = await addProjectAndPrepare(page, state, copyCalendarProject(state, PROJECT));
  await fillStudy("Headline study", "node --test");
  // during the preflight (no trials yet) there is nothing to compare or rerun
  await expect(page.getByTestId("study-state")).toHaveAttribute("data-state", /preflight|running/);
  if ((await page.getByTestId("study-state").getAttribute("data-state")) === "preflight") {
    await expect(compareLink()).toHaveCount(0);
    await expect(rerunButton()).toHaveCount(0);
  }
  const live = page.getByTestId("study-live");
  await expect(page.getByTestId("running-now")).toBeVisible({ timeout: 120_000 });
  await expect(live).toContainText(/Running/);
  await expect(page.getByTestId("running-now")).toContainText(/Trial \d\.1/);
  await expect(rerunButton()).toHaveCount(0);
  // the live state sits above the facts, which are folded, with their summary line
  const liveBox = await live.boundingBox();
  const factsBox = await facts().boundingBox();
  expect(liveBox && factsBox && liveBox.y < factsBox.y).toBe(true);
  await expect(facts()).not.toHaveAttribute("open");
  await expect(page.getByTestId("test-command")).toBeHidden();
  await expect(page.getByTestId("study-facts-summary")).toContainText("node --test");
  await shootBoth(page, "headline-running", SHOTS);
});

test("once the trials end, the headline names each configuration and its result, with the advice", async () => {
  await expect(page.getByTestId("study-state")).toHaveAttribute("data-state", "done", { timeout: 240_000 });
  const headline = page.getByTestId("study-headline");
  await expect(headline).toHaveText(
    /^Configuration 1 · calendar-fix-all · \w+ passed 23\/23; Configuration 2 · calendar-fix-some · \w+ partial 13\/23$/,
  );
  await expect(page.getByTestId("study-headline-comparison")).toHaveText(
    "Not distinguishable with 1 repeat — run 4+ repeats to tell them apart.",
  );
  await expect(page.getByTestId("study-live")).toHaveCount(0);
  // the verdict leads: above the trials and the facts
  const headlineBox = await headline.boundingBox();
  const trialsBox = await page.getByRole("region", { name: "Trials", exact: true }).boundingBox();
  expect(headlineBox && trialsBox && headlineBox.y < trialsBox.y).toBe(true);
  // two trials with results: Compare shows; a finished study with manifests: Rerun shows
  await expect(compareLink()).toBeVisible();
  await expect(rerunButton()).toBeVisible();
  // the facts are folded until opened
  await expect(facts()).not.toHaveAttribute("open");
  await shootBoth(page, "headline-finished", SHOTS);
  await facts().locator(":scope > summary").click();
  await expect(page.getByTestId("test-command")).toHaveText("node --test");
  await facts().locator(":scope > summary").click();
});

test("Run more repeats adds trials of every configuration to the same study, and they run", async () => {
  const studyUrl = page.url();
  const button = page.getByTestId("run-more-repeats");
  await expect(button).toHaveText("Run 3 more repeats");
  await expect(button).toHaveAttribute("title", /same snapshot, environment image and captured test files/);
  await button.click();
  await expect(rows()).toHaveCount(8);
  expect(page.url()).toBe(studyUrl);
  for (const choice of ["1", "2"])
    await expect(page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`)).toHaveCount(4);
  await expect(page.getByTestId("study-state")).toHaveAttribute("data-state", "done", { timeout: 240_000 });
  await expect(page.locator('[data-testid="trial-row"][data-outcome="completed"]')).toHaveCount(8);
  // 4/4 vs 0/4: the interval leaves out zero and Fisher's exact p is 0.029, so the comparison decides
  await expect(page.getByTestId("study-headline")).toHaveText(
    /^Configuration 1 · calendar-fix-all · \w+ passed every test in 4\/4 trials; Configuration 2 · calendar-fix-some · \w+ partial: passed every test in 0\/4 trials \(median 13\/23 tests\)$/,
  );
  await expect(page.getByTestId("study-headline-comparison")).toHaveText(
    "Configuration 1 passes more often than Configuration 2.",
  );
  await shootBoth(page, "headline-repeated", SHOTS);
});

test("a refused study shows the refusal first, no trials, and no Compare or Rerun", async () => {
  await page.goto(projectUrl);
  await fillStudy("Refused headline study", "no-such-test-runner --all");
  await expect(page.getByTestId("study-state")).toHaveAttribute("data-state", "refused", { timeout: 120_000 });
  await expect(page.getByTestId("refusal")).toBeVisible();
  await expect(rows()).toHaveCount(0);
  await expect(compareLink()).toHaveCount(0);
  await expect(rerunButton()).toHaveCount(0);
  await expect(page.getByTestId("study-lead")).toHaveCount(0);
  // no trials: no trials table, no comparisons of empty configurations
  await expect(page.getByRole("region", { name: "Per configuration" })).toHaveCount(0);
  await expect(facts()).not.toHaveAttribute("open");
  await shootBoth(page, "headline-refused", SHOTS);
});
