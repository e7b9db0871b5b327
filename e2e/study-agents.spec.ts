import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { shootBoth } from "./screenshots";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject } from "./keep-result-support";

/**
 * Three agents in one study from the browser (issue 27): the form offers Codex, Claude Code and
 * Gemini CLI with each one's models and efforts; the study runs them on the bundled scripted model
 * (no provider key needed) and names each by its agent; a Claude Code trial's review shows its
 * transcript. Named to run after first-minutes.spec.ts, which needs an empty dashboard.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SHOTS = process.env.AGENT_SCREENSHOTS ?? "";
const MODEL = "scripted:calendar-fix-all";

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

test("the form offers each agent with its own models and efforts", async () => {
  const projectDir = copyCalendarProject(state, "calendar-agents");
  await addProjectAndPrepare(page, state, projectDir);
  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: "calendar-agents" });
  await page.getByLabel("Title").fill("Three agents");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();

  const harness = page.getByLabel("Harness 1");
  await expect(harness.locator("option")).toHaveText(["Codex", "Claude Code", "Gemini CLI", "Command"]);
  await page.getByLabel("Model 1", { exact: true }).fill(MODEL);
  for (const [row, kind] of [
    [2, "claude-code"],
    [3, "gemini-cli"],
  ] as const) {
    await page.getByRole("button", { name: "Add configuration" }).click();
    await page.getByLabel(`Harness ${row}`).selectOption(kind);
  }
  // another provider's agent does not inherit Codex's model: it asks for its own, with an example
  const claudeModel = page.getByLabel("Model 2", { exact: true });
  await expect(claudeModel).toHaveValue("");
  await expect(claudeModel).toHaveAttribute("placeholder", "claude-sonnet-4-5");
  const suggestions = await page
    .locator(`datalist#${await claudeModel.getAttribute("list")} option`)
    .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
  expect(suggestions).toContain("claude-sonnet-4-5");
  expect(suggestions.every((model) => model.startsWith("claude-"))).toBe(true);
  await expect(page.getByLabel("Effort 2").locator("option")).toHaveText(["low", "medium", "high", "xhigh"]);
  await expect(page.getByLabel("Effort 3", { exact: true })).toHaveCount(0);
  await expect(page.getByLabel("Model 3", { exact: true })).toHaveAttribute("placeholder", "gemini-2.5-pro");
  await claudeModel.fill(MODEL);
  await page.getByLabel("Effort 2").selectOption("high");
  await page.getByLabel("Model 3", { exact: true }).fill(MODEL);
  await expect(page.getByLabel("Label 2", { exact: true })).toHaveAttribute(
    "placeholder",
    `Claude Code · ${MODEL} · high`,
  );
  await expect(page.getByLabel("Label 3", { exact: true })).toHaveAttribute("placeholder", `Gemini CLI · ${MODEL}`);
  // beside other agents, Codex is named too
  await expect(page.getByLabel("Label 1", { exact: true })).toHaveAttribute("placeholder", `Codex · ${MODEL} · medium`);
  await shootBoth(page, "agents-form", SHOTS);
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  studyUrl = page.url();
});

test("the study runs all three to 23/23 and names each by its agent", async () => {
  const row = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
  for (const choice of ["1", "2", "3"])
    await expect(row(choice)).toHaveAttribute("data-state", "succeeded", { timeout: 240_000 });
  await expect(row("1").getByTestId("trial-configuration")).toHaveText(`Codex · ${MODEL} · medium`);
  await expect(row("2").getByTestId("trial-configuration")).toHaveText(`Claude Code · ${MODEL} · high`);
  await expect(row("2").getByTestId("trial-configuration")).toHaveAttribute(
    "title",
    `Claude Code ${MODEL} · effort high`,
  );
  await expect(row("3").getByTestId("trial-configuration")).toHaveText(`Gemini CLI · ${MODEL}`);
  for (const choice of ["1", "2", "3"]) await expect(row(choice)).toContainText("23/23");
  await shootBoth(page, "agents-study", SHOTS);
});

test("a Claude Code trial's review shows its transcript and its harness", async () => {
  const trialId = await page.locator('[data-testid="trial-row"][data-choice="2"]').getAttribute("data-trial-id");
  await page.goto(`${studyUrl}/trials/${trialId ?? ""}`);
  await page.getByRole("tab", { name: "Transcript" }).click();
  const transcript = page.getByRole("region", { name: "Transcript" });
  const command = transcript.getByTestId("transcript-command").filter({ hasText: "node --test" });
  await expect(command.first()).toBeVisible();
  await expect(command.first().getByTestId("command-exit")).toHaveText("exit 0");
  await expect(page.locator("main")).toContainText("Claude Code");
  await shootBoth(page, "agents-review", SHOTS);
});
