import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject, shoot } from "./keep-result-support";

/**
 * Big studies (issue 17): a study of 80 trials (4 configurations × 20 repeats) renders only the trial
 * rows near the viewport (the table says how many rows it has: aria-rowcount), yet every row can be
 * reached — by scrolling to it, or with "Find trials" — and opened from the keyboard. The study is
 * stopped once that is shown (its trials need not run). Screenshots (wide and phone-wide) go to
 * KEEP_RESULT_SCREENSHOTS when set. Named to run after first-minutes.spec.ts, which needs an empty dashboard.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

let state: E2eState;
let admin: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

/** Scrolls as a reader would: the table's end into view, again until its last row is drawn there. */
async function scrollToTableEnd(): Promise<void> {
  const table = page.getByRole("table", { name: "Trials" });
  const last = table.locator('[data-testid="trial-row"][data-choice="4"][data-repeat="20"]');
  await expect(async () => {
    await table.evaluate((element) =>
      window.scrollTo(0, element.getBoundingClientRect().bottom + window.scrollY - window.innerHeight + 40),
    );
    await expect(last).toBeInViewport({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
}

const MODELS = ["calendar-fix-none", "calendar-fix-some", "calendar-fix-all", "calendar-fix-none"];

test("a study of 80 trials renders a window of its rows, and every row can be scrolled to, found and opened", async () => {
  const projectDir = copyCalendarProject(state, "calendar-many");
  await addProjectAndPrepare(page, state, projectDir);
  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: "calendar-many" });
  await page.getByLabel("Title").fill("Eighty trials");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  for (const [index, model] of MODELS.entries()) {
    if (index > 0) await page.getByRole("button", { name: "Add configuration" }).click();
    await page.getByLabel(`Model ${index + 1}`).fill(model);
    await page.getByLabel(`Repeats ${index + 1}`).fill("20");
  }
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);

  const table = page.getByRole("table", { name: "Trials" });
  await expect(table).toHaveAttribute("aria-rowcount", "81");
  await expect(page.getByRole("status").filter({ hasText: /^80 trials$/ })).toBeVisible();
  const rows = table.getByTestId("trial-row");
  await expect(rows.first()).toHaveAttribute("data-choice", "1");
  const rendered = await rows.count();
  expect(rendered).toBeGreaterThan(10);
  expect(rendered).toBeLessThan(80);
  await shoot(page, "study-many-trials", { top: true });

  // the last row, by scrolling the table's end into view
  const last = table.locator('[data-testid="trial-row"][data-choice="4"][data-repeat="20"]');
  await expect(last).toHaveCount(0);
  await scrollToTableEnd();
  await expect(last).toHaveAttribute("aria-rowindex", "81");
  await expect(rows.first()).not.toHaveAttribute("data-choice", "1");
  await shoot(page, "study-many-trials-end");

  // one in the middle, by "Find trials"; then opened from the keyboard
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByRole("searchbox", { name: "Find trials" }).fill("3.10");
  await expect(rows).toHaveCount(1);
  await expect(page.getByRole("status").filter({ hasText: /^1 of 80 trials$/ })).toBeVisible();
  const found = table.getByRole("row", { name: /^Trial 3\.10: / });
  await expect(found).toHaveAttribute("data-repeat", "10");
  await found.focus();
  await page.keyboard.press("Enter");
  await expect(found).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByTestId("trial-detail-row")).toHaveCount(1);
  await page.keyboard.press("Enter");
  await page.getByRole("searchbox", { name: "Find trials" }).fill("no such trial");
  await expect(rows).toHaveCount(0);
  await expect(page.getByText("No trial matches.")).toBeVisible();
  await page.getByRole("searchbox", { name: "Find trials" }).fill("");
  await expect(table).toHaveAttribute("aria-rowcount", "81");

  // phone-wide: still a window, the last row still reachable
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, "narrow-study-many-trials", { top: true });
  await scrollToTableEnd();
  await shoot(page, "narrow-study-many-trials-end");
  await page.setViewportSize({ width: 1440, height: 900 });

  // its trials need not run
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByRole("button", { name: "Stop study…" }).click();
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const counts = page.getByTestId("study-counts");
  await expect(counts).toContainText("stopped", { timeout: 120_000 });
  await expect(counts).not.toContainText(/running|queued/, { timeout: 120_000 });
});
