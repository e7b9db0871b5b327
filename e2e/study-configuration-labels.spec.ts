import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { shootBoth } from "./screenshots";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject } from "./keep-result-support";

/**
 * Command configurations told apart (issue 26, point 3): a study of two command lines shows each by its
 * label (the command's first words) on the study page and the compare page, never "(command)"; the form
 * shows no Model or Effort for a command row; "What differed" names fields in words, not raw keys.
 * Named to run after first-minutes.spec.ts, which needs an empty dashboard (specs run in file-name order).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SED = "sed -i 's/x/y/' src/calendar.js";
const NOTES = "printf 'notes about the calendar fix, written by a scripted agent' > NOTES.md";
const NOTES_LABEL = "printf 'notes about the calendar fix,…";
const SHOTS = process.env.LABEL_SCREENSHOTS ?? "";

let state: E2eState;
let admin: BrowserContext;
let page: Page;
let studyUrl: string;

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext();
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

/** No configuration reads "(command)" or "command · medium"; no manifest key shows raw. */
async function expectNoRawNames(): Promise<void> {
  const text = await page.locator("main").innerText();
  expect(text).not.toContain("(command)");
  expect(text).not.toMatch(/command · (minimal|low|medium|high|xhigh)/);
  expect(text).not.toMatch(/configuration\.\w+|reportedModel|harnessVersion/);
}

test("a study of two command lines: the form shows only the fields a command uses", async () => {
  const projectDir = copyCalendarProject(state, "calendar-labels");
  await addProjectAndPrepare(page, state, projectDir);
  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: "calendar-labels" });
  await page.getByLabel("Title").fill("Two command lines");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Harness 1").selectOption("command");
  await page.getByLabel("Command 1").fill(SED);
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Harness 2").selectOption("command");
  await page.getByLabel("Command 2").fill(NOTES);
  // no model or effort for a command row; the label's placeholder is what it will read
  await expect(page.getByLabel("Model 1", { exact: true })).toHaveCount(0);
  await expect(page.getByLabel("Effort 2", { exact: true })).toHaveCount(0);
  await expect(page.getByLabel("Label 1", { exact: true })).toHaveAttribute("placeholder", SED);
  await expect(page.getByLabel("Label 2", { exact: true })).toHaveAttribute("placeholder", NOTES_LABEL);
  await shootBoth(page, "labels-form", SHOTS);
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  studyUrl = page.url();
});

test("the study page names each configuration by its label", async () => {
  const row = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
  for (const choice of ["1", "2"])
    await expect(row(choice)).toHaveAttribute("data-state", "succeeded", { timeout: 240_000 });
  await expect(row("1").getByTestId("trial-configuration")).toHaveText(SED);
  await expect(row("2").getByTestId("trial-configuration")).toHaveText(NOTES_LABEL);
  // the whole command line is in the cell's title
  await expect(row("2").getByTestId("trial-configuration")).toHaveAttribute("title", `command ${NOTES}`);
  await expectNoRawNames();
  await shootBoth(page, "labels-study", SHOTS);
});

test("the compare page shows the two labels and what differed in words", async () => {
  const ids = await page.getByTestId("trial-row").evaluateAll((rows) => rows.map((row) => row.dataset.trialId));
  await page.goto(`${studyUrl}/compare?trials=${ids.join(",")}`);
  const picker = page.getByRole("group", { name: /Trials to compare/ });
  await expect(picker).toContainText(`Trial 1.1 · ${SED}`);
  await expect(picker).toContainText(`Trial 2.1 · ${NOTES_LABEL}`);
  const differed = page.getByRole("region", { name: "What differed" });
  const command = differed.locator('[data-testid="manifest-diff-row"][data-path="configuration.command"]');
  await expect(command.getByRole("rowheader")).toHaveText("Agent command");
  await expect(command).toContainText(NOTES);
  await expect(page.getByText(/files changed by any of 2 trials/)).toBeVisible({ timeout: 30_000 });
  await expectNoRawNames();
  await shootBoth(page, "labels-compare", SHOTS);
});
