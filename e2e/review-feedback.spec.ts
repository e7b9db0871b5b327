import { expect, test, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject, createViewerLink, monacoSide } from "./keep-result-support";
import { shootBoth } from "./screenshots";

/**
 * Review comments go back to the agent (issue 28, point 3), in Chromium on the calendar fixture and the mock
 * model's `calendar-feedback` script (13/23 on the first turn, 23/23 once a follow-up resumes the conversation):
 * comment on a line range in Monaco and on the whole trial; a viewer reads the comments without forms; Continue
 * with feedback runs Trial 1.1.1 live to a higher verdict, shown under its parent on the study page, its review
 * linking the parent with the diff against parent or snapshot; a refusal says why; Send feedback to 2 trials is
 * one action. Its own project and study (`calendar-feedback`), so the specs after it see theirs unchanged.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(360_000);

// screenshots (and the page-width check) always; INVARIANT_E2E_SHOTS=DIR also copies them there to look at
const SHOTS = process.env.INVARIANT_E2E_SHOTS ?? "";
const LINE_COMMENT = "weekday still throws: implement it without the Date object.";
const TRIAL_COMMENT = "Implement the four functions that still throw; keep the others as they are.";
let state: E2eState;
let admin: BrowserContext;
let page: Page;
let studyUrl = "";
const trialIds: Record<string, string> = {};

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

const row = (p: Page, number: string) => p.locator(`[data-testid="trial-row"][data-number="${number}"]`);
const reviewUrl = (number: string) => `${studyUrl}/trials/${trialIds[number]}`;

async function rememberTrialIds(p: Page) {
  for (const element of await p.getByTestId("trial-row").all()) {
    const number = await element.getAttribute("data-number");
    const id = await element.getAttribute("data-trial-id");
    if (number && id) trialIds[number] = id;
  }
}

/** The diff of src/calendar.js on a trial's review, once Monaco has drawn its modified side. */
async function calendarDiff(p: Page): Promise<Locator> {
  const editor = p.locator('[data-testid="diff-editor"][data-path="src/calendar.js"]');
  await expect(monacoSide(editor, "modified")).toContainText("function", { timeout: 30_000 });
  return editor;
}

test("a study of three repeats of the feedback model: 13/23 each", async () => {
  const projectDir = copyCalendarProject(state, "calendar-feedback");
  await addProjectAndPrepare(page, state, projectDir);
  await page.getByRole("link", { name: "New study" }).first().click();
  await page.getByRole("combobox", { name: "Project" }).selectOption({ label: "calendar-feedback" });
  await page.getByLabel("Title").fill("Review feedback");
  await page.getByLabel("Task").fill("Implement every function in src/calendar.js so that the tests in test/ pass.");
  await page.getByLabel("Test command").fill("node --test");
  await page.getByLabel("Find test files").fill("calendar.test");
  await page.getByRole("button", { name: "Add test/calendar.test.js" }).click();
  await page.getByLabel("Model 1").fill("calendar-feedback");
  await page.getByLabel("Repeats 1").fill("3");
  await page.getByRole("button", { name: "Create study" }).click();
  await expect(page).toHaveURL(/\/studies\/[\w-]+$/);
  studyUrl = page.url();
  for (const number of ["1.1", "1.2", "1.3"]) {
    await expect(row(page, number)).toHaveAttribute("data-state", "succeeded", { timeout: 240_000 });
    await expect(row(page, number).getByTestId("trial-tests")).toHaveText("13/23");
  }
  await rememberTrialIds(page);
});

test("comment on a line range in Monaco and on the whole trial", async () => {
  await page.goto(reviewUrl("1.1"));
  const editor = await calendarDiff(page);
  // a line-number click selects its line and opens the form; Shift+click the third one extends it to a range
  const numbers = editor.locator(".editor.modified .margin .line-numbers");
  const first = (await numbers.nth(0).innerText()).trim();
  const third = (await numbers.nth(2).innerText()).trim();
  await numbers.nth(0).click();
  await numbers.nth(2).click({ modifiers: ["Shift"] });
  const lines = `lines ${first}–${third}`;
  const form = page.getByRole("form", { name: `Comment on src/calendar.js ${lines}` });
  await expect(form).toBeVisible();
  await form.getByRole("textbox").fill(LINE_COMMENT);
  await form.getByRole("button", { name: "Add comment" }).click();
  await expect(form).toHaveCount(0);
  const onFile = page.getByRole("list", { name: "Comments on src/calendar.js" });
  await expect(onFile.getByTestId("review-comment")).toHaveCount(1);
  await expect(onFile.getByTestId("review-comment")).toContainText(LINE_COMMENT);
  await expect(onFile.getByTestId("comment-place")).toHaveText(lines);
  // the lines are marked in the diff's gutter
  await expect(editor.locator(".editor.modified .margin .bg-accent").first()).toBeVisible();

  await page.getByRole("tab", { name: /Comments/ }).click();
  const whole = page.getByRole("form", { name: "Comment on the whole trial" });
  await whole.getByRole("textbox").fill(TRIAL_COMMENT);
  await whole.getByRole("button", { name: "Add comment" }).click();
  const all = page.getByRole("list", { name: "Review comments" }).getByTestId("review-comment");
  await expect(all).toHaveCount(2);
  await expect(all.nth(0).getByTestId("comment-place")).toHaveText(`src/calendar.js ${lines}`);
  await expect(all.nth(0)).toContainText("admin");
  await expect(all.nth(1).getByTestId("comment-place")).toHaveText("Whole trial");
  await expect(page.getByRole("tab", { name: /Comments/ })).toContainText("2");
  // an unsent comment can be removed
  await whole.getByRole("textbox").fill("A second thought to take back.");
  await whole.getByRole("button", { name: "Add comment" }).click();
  await expect(all).toHaveCount(3);
  await page.getByRole("button", { name: "Remove the comment on the whole trial" }).nth(1).click();
  await expect(all).toHaveCount(2);
  await expect(page.getByRole("list", { name: "Review comments" })).not.toContainText("A second thought");
  await shootBoth(page, "feedback-comments-tab", SHOTS);
  // the jump to a comment's lines opens the Changes tab on its file
  await all.nth(0).getByTestId("comment-place").click();
  await expect(page.getByRole("tab", { name: "Changes" })).toHaveAttribute("aria-selected", "true");
  await calendarDiff(page);
  await shootBoth(page, "feedback-line-comment", SHOTS);
});

test("a viewer sees the comments, without forms or Continue with feedback", async ({ browser }) => {
  const link = await createViewerLink(page, state, "Feedback reader");
  const viewer = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const viewerPage = await viewer.newPage();
    await viewerPage.goto(link);
    await expect(viewerPage.getByText("read-only viewer")).toBeVisible();
    await viewerPage.goto(reviewUrl("1.1"));
    await calendarDiff(viewerPage);
    await expect(viewerPage.getByRole("list", { name: "Comments on src/calendar.js" })).toContainText(LINE_COMMENT);
    await expect(viewerPage.getByTestId("comment-on-selection")).toHaveCount(0);
    await expect(viewerPage.getByRole("button", { name: /Continue with feedback/ })).toHaveCount(0);
    await viewerPage.getByRole("tab", { name: /Comments/ }).click();
    await expect(viewerPage.getByTestId("review-comment")).toHaveCount(2);
    await expect(viewerPage.getByTestId("comment-form")).toHaveCount(0);
    await expect(viewerPage.getByRole("button", { name: /Remove/ })).toHaveCount(0);
    await shootBoth(viewerPage, "feedback-viewer", SHOTS);
    await viewerPage.goto(studyUrl);
    await expect(row(viewerPage, "1.1")).toBeVisible();
    await expect(viewerPage.getByRole("checkbox", { name: /Select Trial/ })).toHaveCount(0);
  } finally {
    await viewer.close();
  }
});

test("Continue with feedback: Trial 1.1.1 runs live and passes 23/23", async () => {
  await page.goto(reviewUrl("1.1"));
  await page.getByRole("button", { name: "Continue with feedback (2)" }).click();
  const form = page.getByRole("form", { name: "Continue with feedback" });
  await expect(form).toContainText("2 unsent comments go to the agent");
  await form.getByLabel("More feedback (optional)").fill("Run the tests before you finish.");
  await shootBoth(page, "feedback-continue-form", SHOTS);
  await form.getByRole("button", { name: "Send feedback" }).click();
  // the follow-up's review opens and follows the run
  await expect(page.getByTestId("review-parent")).toContainText("Follow-up of Trial 1.1");
  await expect(page.getByTestId("review-state")).toHaveAttribute("data-state", "succeeded", { timeout: 240_000 });
  await expect(page.getByTestId("review-verdict")).toHaveText("23/23");
  const feedback = page.getByTestId("review-feedback");
  await feedback.locator("summary").click();
  await expect(feedback).toContainText(LINE_COMMENT);
  await expect(feedback).toContainText(TRIAL_COMMENT);
  await expect(feedback).toContainText("Run the tests before you finish.");

  // against the parent: only what the feedback changed; against the snapshot: all of it
  const file = page.locator('[data-testid="changed-file"][data-path="src/calendar.js"]');
  await expect(page.getByRole("button", { name: "Against parent" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("diff-editor")).toHaveAttribute("data-against", "parent");
  await calendarDiff(page);
  const againstParent = (await file.textContent()) ?? "";
  await shootBoth(page, "feedback-child-against-parent", SHOTS);
  await page.getByRole("button", { name: "Against snapshot" }).click();
  await expect(file).not.toHaveText(againstParent);
  await expect(page.getByTestId("diff-editor")).toHaveAttribute("data-against", "snapshot");
  await calendarDiff(page);
  await shootBoth(page, "feedback-child-against-snapshot", SHOTS);
  await page.getByRole("button", { name: "Against parent" }).click();
  await expect(file).toHaveText(againstParent);
  await expect(page.getByTestId("diff-editor")).toHaveAttribute("data-against", "parent");

  // the parent lists its follow-up with its verdict; its comments say where they went and cannot be removed
  await page.getByTestId("review-parent").getByRole("link", { name: "Trial 1.1" }).click();
  await expect(page).toHaveURL(new RegExp(`/trials/${trialIds["1.1"]}`));
  const followUp = page.getByTestId("review-follow-up");
  await expect(followUp).toContainText("Trial 1.1.1");
  await expect(followUp).toContainText("23/23");
  await page.getByRole("tab", { name: /Comments/ }).click();
  // the text written in Continue with feedback is kept as a whole-trial comment too
  await expect(page.getByTestId("review-comment").nth(2)).toContainText("Run the tests before you finish.");
  await expect(page.getByTestId("comment-sent")).toHaveText(Array(3).fill("sent to Trial 1.1.1"));
  await expect(page.getByRole("button", { name: /Remove/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Continue with feedback/ })).toHaveText("Continue with feedback");
});

test("the study page lists Trial 1.1.1 right under Trial 1.1, with its own verdict and its feedback folded", async () => {
  await page.goto(studyUrl);
  await expect(row(page, "1.1.1")).toHaveAttribute("data-state", "succeeded");
  await rememberTrialIds(page);
  const order = await page.getByTestId("trial-row").evaluateAll((rows) => rows.map((r) => r.dataset.number));
  expect(order).toEqual(["1.1", "1.1.1", "1.2", "1.3"]);
  const child = row(page, "1.1.1");
  await expect(child.getByTestId("trial-follow-up-of")).toContainText("follow-up of Trial 1.1");
  await expect(child.getByTestId("trial-tests")).toHaveText("23/23");
  await child.locator("summary", { hasText: "Feedback" }).click();
  await expect(child.getByTestId("trial-follow-up-of")).toContainText(TRIAL_COMMENT);
  // the configuration's statistics count first attempts only: 0 of 3 passed
  await expect(page.locator('[data-testid="aggregate-row"][data-choice="1"]')).toContainText("0/3");
  await shootBoth(page, "feedback-study-follow-up", SHOTS);
});

test("Send feedback to 2 trials in one action; a trial without feedback is refused by name", async () => {
  await page.goto(studyUrl);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-connected", "true");
  await page.getByRole("checkbox", { name: "Select Trial 1.2" }).check();
  const form = page.getByRole("form", { name: "Send feedback to the selected trials" });
  await form.getByRole("button", { name: "Send feedback to 1 trial" }).click();
  await expect(form.getByRole("alert")).toContainText("Trial 1.2");
  await shootBoth(page, "feedback-refused", SHOTS);

  await page.getByRole("checkbox", { name: "Select Trial 1.3" }).check();
  await form.getByLabel("Feedback for the selected trials").fill(TRIAL_COMMENT);
  await form.getByRole("button", { name: "Send feedback to 2 trials" }).click();
  await expect(form).toHaveCount(0);
  for (const number of ["1.2.1", "1.3.1"]) {
    await expect(row(page, number)).toBeVisible();
    await expect(row(page, number)).toHaveAttribute("data-state", "succeeded", { timeout: 240_000 });
    await expect(row(page, number).getByTestId("trial-tests")).toHaveText("23/23");
  }
  const order = await page.getByTestId("trial-row").evaluateAll((rows) => rows.map((r) => r.dataset.number));
  expect(order).toEqual(["1.1", "1.1.1", "1.2", "1.2.1", "1.3", "1.3.1"]);
  await shootBoth(page, "feedback-study-two-follow-ups", SHOTS);
});
