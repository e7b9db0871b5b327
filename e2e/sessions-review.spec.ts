import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject, postMutations } from "./keep-result-support";
import { renderedLines, waitForTerminal } from "./terminal-support";

/**
 * Issue 26, points 9 and 13 (sessions): a finished private-copy session is reviewed as a trial is. The real
 * Codex TUI (mock script `session-chat`) writes from-codex.txt in its private copy; while it runs, the header's
 * Thread and Tokens fill in after its reply (and say "none yet" before); `/exit` leaves an exit screen with no raw
 * terminal reply (`^[[?1;2c`) on it; finished, its page keeps the last screen (read-only) and leads to
 * /sessions/<id>/review: the file tree, the Monaco diff, the patch, Apply to project and Undo.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SHOTS = "/tmp/shots-sessreview";
const RAW_REPLY = /\^\[\[\?[\d;]*c|\[\?1;2c/;
let state: E2eState;
let admin: BrowserContext;
let page: Page;
let projectDir: string;
let sessionId = "";

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
  projectDir = copyCalendarProject(state, "calendar-session-review");
});

test.afterAll(async () => {
  if (sessionId) await postMutations(page, { finish: ["sessions.finish", { sessionId }] }).catch(() => undefined);
  await admin.close();
});

async function shoot(p: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 390]) {
    await p.setViewportSize({ width, height: 900 });
    await p.waitForTimeout(400);
    await p.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
}

/** A prompt typed as a person does: the text, a pause, Enter on its own (again while no reply shows). */
async function prompt(p: Page, text: string, reply: string) {
  const terminal = p.getByTestId("terminal");
  await terminal.click();
  await p.keyboard.type(text);
  for (let attempt = 1; ; attempt++) {
    await p.waitForTimeout(400);
    await p.keyboard.press("Enter");
    try {
      await expect(terminal.locator(".xterm-rows")).toContainText(reply, { timeout: attempt < 3 ? 20_000 : 60_000 });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

test("a Codex private copy: Thread and Tokens say 'none yet', then fill in after its reply", async () => {
  await addProjectAndPrepare(page, state, projectDir);
  await page.goto(`${state.origin}/sessions`);
  const form = page.getByRole("form", { name: "Start a session" });
  await form.getByLabel("Project", { exact: true }).selectOption({ label: "calendar-session-review" });
  await form.getByLabel("Codex", { exact: true }).check();
  await form.getByLabel(/^Private copy/).check();
  await form.getByLabel("Model", { exact: true }).fill("session-chat");
  await form.getByRole("button", { name: "Start session" }).click();
  await expect(page).toHaveURL(/\/sessions\/[\w-]+$/, { timeout: 60_000 });
  sessionId = new URL(page.url()).pathname.split("/").pop() ?? "";
  await waitForTerminal(page);
  await expect(page.getByTestId("terminal").locator(".xterm-rows")).toContainText("for shortcuts", {
    timeout: 60_000,
  });
  await expect(page.getByTestId("session-thread")).toHaveText("none yet");
  await expect(page.getByTestId("session-tokens")).toHaveText("none yet");
  await prompt(page, "Please write the file.", "I wrote from-codex.txt for you.");
  // recorded while it runs (not only at its exit), and the page hears of it
  await expect(page.getByTestId("session-thread")).toHaveText(/^[0-9a-f-]{36}$/, { timeout: 20_000 });
  await expect(page.getByTestId("session-tokens")).toHaveText(/^[\d,]+$/, { timeout: 20_000 });
});

test("/exit: the exit screen shows no raw terminal reply", async () => {
  const terminal = page.getByTestId("terminal");
  await terminal.click();
  await page.keyboard.type("/exit");
  await page.waitForTimeout(400);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("session-state")).toHaveText("exited", { timeout: 30_000 });
  // the TTY's echo of a late answer to a device-attributes query would show here
  await page.waitForTimeout(1500);
  const screen = (await renderedLines(page)).join("\n");
  // Codex leaves its full-screen view: its goodbye (tokens, how to resume) is the exit screen
  expect(screen).toContain("Token usage:");
  expect(screen).toContain("codex resume");
  expect(screen).not.toMatch(RAW_REPLY);
});

test("finished: the page keeps the last screen, lists the change and leads to its review", async () => {
  await page.getByRole("button", { name: "Finish…" }).click();
  await page.getByRole("button", { name: "Finish: remove its container" }).click();
  await expect(page.getByTestId("session-state")).toHaveText("finished", { timeout: 60_000 });
  const last = page.getByTestId("last-screen");
  await expect(last).toContainText("To continue this session, run:");
  await expect(last).not.toContainText("?1;2c");
  await expect(page.getByRole("list", { name: "Changed files" })).toContainText("from-codex.txt");
  await expect(page.getByTestId("session-review-primary")).toHaveText("Review changes");
  await shoot(page, "finished");
});

test("the review: tree, Monaco diff, patch; Apply writes the file, Undo takes it back", async () => {
  await page.getByTestId("session-review-primary").click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/review`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Review: Codex · session-chat");
  await expect(page.getByRole("complementary", { name: "Files" })).toContainText("from-codex.txt");
  const editor = page.getByTestId("diff-editor");
  await expect(editor).toHaveAttribute("data-path", "from-codex.txt");
  await expect(editor.locator(".monaco-diff-editor")).toBeVisible({ timeout: 30_000 });
  await expect(editor.locator(".modified .view-lines")).toContainText("written in a session");

  const patch = await page.request.get(`${state.origin}/api/sessions/${sessionId}/patch`);
  expect(patch.status()).toBe(200);
  const text = await patch.text();
  expect(text).toContain("diff --git a/from-codex.txt b/from-codex.txt");
  expect(text).toContain("+written in a session");
  await shoot(page, "review");

  const target = path.join(projectDir, "from-codex.txt");
  expect(fs.existsSync(target)).toBe(false);
  await page.getByRole("button", { name: "Apply to project…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Apply 1 change" }).click();
  await expect(dialog.getByTestId("apply-outcome")).toHaveAttribute("data-outcome", "applied");
  expect(fs.readFileSync(target, "utf8")).toBe("written in a session\n");
  await dialog.getByRole("button", { name: "Undo" }).click();
  await expect(dialog.getByTestId("undo-outcome")).toHaveAttribute("data-outcome", "undone");
  expect(fs.existsSync(target)).toBe(false);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("trial-applied")).toHaveCount(0);
});
