import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Download, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";

/**
 * The heart of the product, through the UI only: a project whose 23 node:test checks fail, a study of
 * three configurations whose mock scripts fix all, some and none of the code (the real Codex binary in
 * containers, through the model gateway, against the scripted mock model), a 0/23 preflight, trials that
 * change state live, results, the three reports, and a viewer who can read and download but not act.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

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

async function downloadText(p: Page, linkName: string): Promise<{ name: string; text: string }> {
  const [download]: [Download, void] = await Promise.all([
    p.waitForEvent("download"),
    p.getByRole("link", { name: linkName, exact: true }).click(),
  ]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: fs.readFileSync(file, "utf8") };
}

test("add the calendar project and prepare its environment", async () => {
  await page.goto(`${state.origin}/projects`);
  await page.getByLabel("Project directory on this host").fill(state.calendarDir);
  await page.getByRole("button", { name: "Add project" }).click();
  await page
    .getByRole("list", { name: "Projects" })
    .getByRole("link")
    .filter({ has: page.getByText("calendar", { exact: true }) }) // other specs add calendar-* projects
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "calendar" })).toBeVisible();
  const panel = page.getByRole("region", { name: "Environment" });
  await panel.getByRole("button", { name: "Prepare environment" }).click();
  await expect(
    panel.getByRole("table", { name: "Environment versions" }).getByRole("row", { name: /v1 active/ }),
  ).toContainText("ready", { timeout: 120_000 });
});

test("create a study of three configurations from the form; the preflight shows 0/23", async () => {
  await page.getByRole("link", { name: "New study" }).first().click();
  await expect(page).toHaveURL(/\/studies\/new/);
  await expect(page.getByRole("combobox", { name: "Project" })).toHaveValue(/.+/);
  await page.getByLabel("Title").fill("Calendar utility");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  // a test file is restored as a test; runner config (package.json, …) could be added with role "runner config"
  await expect(page.getByLabel("Role of test/calendar.test.js")).toHaveValue("test");
  await page.getByLabel("Model 1").fill("calendar-fix-all");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 2").fill("calendar-fix-some");
  await page.getByLabel("Effort 2").selectOption("high");
  await page.getByRole("button", { name: "Add configuration" }).click();
  await page.getByLabel("Model 3").fill("calendar-fix-none");
  await page.getByRole("button", { name: "Create study" }).click();

  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  studyUrl = page.url();
  await expect(page.getByTestId("baseline")).toContainText("0/23", { timeout: 90_000 });
});

test("the trials run live and end with 23/23, a partial count and 0/23, with tokens and seconds", async () => {
  const rows = page.getByTestId("trial-row");
  await expect(rows).toHaveCount(3);
  // a state change seen without reloading: some trial is past `queued` before all have finished
  await expect(
    page
      .locator(
        '[data-testid="trial-row"]:is([data-state="preparing"], [data-state="agent"], [data-state="evaluating"])',
      )
      .first(),
  ).toBeVisible({ timeout: 90_000 });
  for (const choice of ["1", "2", "3"]) {
    await expect(page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`)).toHaveAttribute(
      "data-outcome",
      "completed",
      { timeout: 150_000 },
    );
  }
  const row = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
  await expect(row("1").getByTestId("trial-tests")).toHaveText("23/23");
  await expect(row("2").getByTestId("trial-tests")).toHaveText("13/23");
  await expect(row("3").getByTestId("trial-tests")).toHaveText("0/23");
  // the run's outcome and the verdict are two things: a 0/23 run completed, and passed none
  for (const choice of ["1", "2", "3"]) await expect(row(choice).getByTestId("trial-state")).toHaveText("completed");
  await expect(row("1").getByTestId("trial-verdict")).toHaveText("all passed");
  await expect(row("2").getByTestId("trial-verdict")).toHaveText("partial");
  await expect(row("3").getByTestId("trial-verdict")).toHaveText("none passed");
  await expect(page.getByRole("table", { name: "Trials" })).not.toContainText("succeeded");
  await expect(page.getByTestId("study-counts")).toContainText("3/3 finished");
  // fix-all: 4 responses × (12,000 input + 1,800 output) metered by the gateway
  await expect(row("1").getByTestId("trial-tokens")).toHaveText("55,200");
  for (const choice of ["1", "2", "3"]) await expect(row(choice).getByTestId("trial-seconds")).toHaveText(/^\d+\.\d$/);
  // one repeat each: the page says no comparison can be made, and how many repeats would tell them apart
  const comparisons = page.getByRole("region", { name: "Comparisons" }).getByTestId("comparison");
  await expect(comparisons).toHaveCount(3);
  await expect(comparisons.first()).toHaveAttribute("data-verdict", "too-few-repeats");
  await expect(comparisons.first()).toContainText(
    /^Configuration 1 \(calendar-fix-all · \w+\) and Configuration 2 \(calendar-fix-some · \w+\) cannot be compared with a single finished repeat \(1\/1 vs 0\/1\)/,
  );
  await expect(comparisons.first()).toContainText("repeats per configuration (α 0.05, power 0.8)");
});

test("trial panels: several open at once, Esc closes the last; the log ends with the outcome and the verdict", async () => {
  const row = (choice: string) => page.locator(`[data-testid="trial-row"][data-choice="${choice}"]`);
  await row("3").click();
  await row("1").click();
  const panels = page.getByTestId("trial-detail");
  await expect(panels).toHaveCount(2);
  const none = page.getByRole("region", { name: "Trial 3.1" });
  await expect(none.getByTestId("trial-outcome")).toContainText("completed");
  await expect(none.getByTestId("trial-outcome")).toContainText("0/23 tests passed");
  await expect(none.getByTestId("trial-log")).toContainText("Trial completed: 0/23 tests passed");
  await expect(none.getByTestId("trial-log")).not.toContainText("Trial succeeded");
  // the tamper indicator: this agent changed none of the captured files
  await expect(none.getByTestId("captured-changes")).toHaveText("none changed");
  // it changed nothing: no review, no apply, no patch — it says so
  await expect(none.getByTestId("trial-no-changes")).toHaveText("No changes");
  await expect(none.getByRole("link", { name: "Review changes" })).toHaveCount(0);
  await expect(none.getByRole("button", { name: "Apply to project…" })).toHaveCount(0);
  await expect(none.getByRole("button", { name: "Continue in a session…" })).toBeEnabled();
  await expect(page.getByRole("region", { name: "Trial 1.1" }).getByTestId("trial-review-primary")).toHaveAttribute(
    "href",
    /\/studies\/[\w-]+\/trials\/[\w-]+$/,
  );
  // the manifest says how its workspace was made (copy-on-write on this engine, chosen automatically);
  // read in the last panel opened, which the Escape below closes either way
  const all = page.getByRole("region", { name: "Trial 1.1" });
  await all.getByText("Manifest: what it ran on").click();
  await expect(all.getByTestId("trial-manifest")).toContainText(
    "Workspacecopy-on-write overlay over the snapshot (the trial's own layer holds only its changes)",
  );
  await page.keyboard.press("Escape");
  await expect(panels).toHaveCount(1);
  await expect(page.getByRole("region", { name: "Trial 3.1" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panels).toHaveCount(0);
  await expect(page.getByTestId("tests-chart-trials")).toHaveAttribute(
    "aria-label",
    /calendar-fix-none · medium 0\/23/,
  );
});

test("the Markdown, JSON and CSV reports contain those figures", async () => {
  const md = await downloadText(page, "Markdown");
  expect(md.name).toMatch(/\.md$/);
  expect(md.text).toContain("23/23");
  expect(md.text).toContain("13/23");
  expect(md.text).toContain("0/23");
  expect(md.text).toContain("55,200");
  const json = await downloadText(page, "JSON");
  const report = JSON.parse(json.text) as {
    baseline: { passed: number; total: number };
    trials: { choice: number; verdict: { passed: number } | null; tokens: { total: number } }[];
  };
  expect(report.baseline).toMatchObject({ passed: 0, total: 23 });
  expect(report.trials.map((trial) => [trial.choice, trial.verdict?.passed]).sort()).toEqual([
    [1, 23],
    [2, 13],
    [3, 0],
  ]);
  expect(report.trials.find((trial) => trial.choice === 1)?.tokens.total).toBe(55_200);
  const csv = await downloadText(page, "CSV");
  expect(csv.text.split("\r\n")[0]).toContain("tests_passed");
  expect(csv.text).toContain("calendar-fix-all");
  expect(csv.text).toContain("55200");
});

test("a viewer link sees the study and downloads the reports, but cannot start, stop or retry", async ({ browser }) => {
  await page.goto(`${state.origin}/system`);
  // no --registry on this product: images to workers on other hosts move as docker save, and the page says so
  await expect(page.getByTestId("image-transport")).toHaveText(
    "Images to and from workers on other hosts: docker save over HTTP (no --registry set: every image moves whole).",
  );
  const form = page.getByRole("form", { name: "Create viewer link" });
  await form.getByLabel("Label").fill("Study reviewer");
  await form.getByRole("button", { name: "Create viewer link" }).click();
  const link = (await page.getByTestId("new-viewer-link").innerText()).trim();

  const viewer = await browser.newContext();
  try {
    const viewerPage = await viewer.newPage();
    await viewerPage.goto(link);
    await expect(viewerPage.getByText("read-only viewer")).toBeVisible();
    await viewerPage.goto(studyUrl);
    await expect(viewerPage.getByTestId("trial-row")).toHaveCount(3);
    await expect(
      viewerPage.locator('[data-testid="trial-row"][data-choice="1"]').getByTestId("trial-tests"),
    ).toHaveText("23/23");
    const csv = await downloadText(viewerPage, "CSV");
    expect(csv.text).toContain("55200");
    await expect(viewerPage.getByRole("button", { name: /Stop/ })).toHaveCount(0);
    await expect(viewerPage.getByRole("button", { name: /Retry/ })).toHaveCount(0);
    await expect(viewerPage.getByRole("button", { name: /Delete/ })).toHaveCount(0);
    await viewerPage.goto(`${state.origin}/studies`);
    await expect(viewerPage.getByRole("link", { name: "Calendar utility" })).toBeVisible();
    await expect(viewerPage.getByRole("link", { name: /New study/ })).toHaveCount(0);
    const studyId = new URL(studyUrl).pathname.split("/").pop() ?? "";
    const attempts = await viewerPage.evaluate(async (id) => {
      const post = async (procedure: string, body: unknown) =>
        (
          await fetch(`/api/trpc/${procedure}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).status;
      return {
        stop: await post("studies.stop", { studyId: id }),
        retry: await post("studies.retry", { studyId: id, trialIds: ["x"] }),
        remove: await post("studies.remove", { studyId: id }),
        create: await post("studies.create", {
          projectId: "x",
          title: "t",
          taskPrompt: "t",
          testCommand: "true",
          configurations: [{ harness: "codex", model: "m", repeats: 1 }],
        }),
      };
    }, studyId);
    expect(attempts).toEqual({ stop: 403, retry: 403, remove: 403, create: 403 });
  } finally {
    await viewer.close();
  }
});

test("the admin deletes the finished study: after a confirmation it is gone, with its trials' workspaces", async () => {
  await page.goto(studyUrl);
  const studyId = new URL(studyUrl).pathname.split("/").pop() ?? "";
  const workspacesBefore = fs.readdirSync(path.join(state.dataDir, "workspaces"));
  expect(workspacesBefore.length).toBeGreaterThanOrEqual(3);
  await page.getByRole("button", { name: "Delete study…" }).click();
  const confirm = page.getByRole("group", { name: "Confirm deletion" });
  await expect(confirm).toContainText("with its 3 trials");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  await page.getByRole("button", { name: "Delete study…" }).click();
  await page
    .getByRole("group", { name: "Confirm deletion" })
    .getByRole("button", { name: "Delete", exact: true })
    .click();
  await page.waitForURL(/\/projects\/[^/]+$/);
  await page.goto(`${state.origin}/studies`);
  await expect(page.getByRole("link", { name: "Calendar utility" })).toHaveCount(0);
  expect(fs.readdirSync(path.join(state.dataDir, "workspaces")).length).toBe(workspacesBefore.length - 3);
  expect(fs.existsSync(path.join(state.dataDir, "studies", studyId))).toBe(false);
  // the deleted study's address answers 404 with a page that says so
  const gone = await page.goto(studyUrl);
  expect(gone?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No such study" })).toBeVisible();
  await expect(page.getByRole("link", { name: "All studies" })).toBeVisible();
});
