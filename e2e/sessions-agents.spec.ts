import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject, postMutations } from "./keep-result-support";
import { waitForTerminal } from "./terminal-support";

/**
 * Issue 27, point 5: Claude Code and Gemini CLI sessions in the browser terminal, as a Codex one. The start
 * form offers each with a model; the real TUI (the package's CLI, in the project's environment) starts with
 * no onboarding, trust or API-key question, answers a prompt typed in the browser (the bundled scripted
 * model `scripted:session-chat` writes from-codex.txt and replies), its exit command leaves it exited with
 * the CLI's session id as its thread, and Resume continues the same conversation (the earlier prompt on
 * screen, then the script's second reply, which it gives only to a request that carries the earlier turns).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(300_000);

const SHOTS = "/tmp/shots-sessagents";
const PROJECT = "calendar-session-agents";
const MODEL = "scripted:session-chat";
const AGENTS = [
  { label: "Claude Code", example: "claude-sonnet-4-5", ready: "bypass permissions on", exit: "/exit" },
  { label: "Gemini CLI", example: "gemini-2.5-pro", ready: "Type your message", exit: "/quit" },
] as const;
let state: E2eState;
let admin: BrowserContext;
let page: Page;
const sessionIds: string[] = [];

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  for (const sessionId of sessionIds)
    await postMutations(page, { finish: ["sessions.finish", { sessionId }] }).catch(() => undefined);
  await admin.close();
});

async function shoot(p: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

const rows = (p: Page) => p.getByTestId("terminal").locator(".xterm-rows");

/** A prompt typed as a person does: the text, a pause, Enter on its own (again while no reply shows). */
async function prompt(p: Page, text: string, reply: string) {
  await p.getByTestId("terminal").click();
  await p.keyboard.type(text);
  for (let attempt = 1; ; attempt++) {
    await p.waitForTimeout(400);
    await p.keyboard.press("Enter");
    try {
      await expect(rows(p)).toContainText(reply, { timeout: attempt < 3 ? 20_000 : 60_000 });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

test.beforeAll(async () => {
  await addProjectAndPrepare(page, state, copyCalendarProject(state, PROJECT));
});

for (const agent of AGENTS) {
  test(`${agent.label} from the start form: the TUI answers a prompt typed in the browser`, async () => {
    await page.goto(`${state.origin}/sessions`);
    const form = page.getByRole("form", { name: "Start a session" });
    await form.getByLabel("Project", { exact: true }).selectOption({ label: PROJECT });
    await form.getByLabel(agent.label, { exact: true }).check();
    await form.getByLabel(/^Private copy/).check();
    // no default model for this agent in this project: the field asks for one, with an example
    await expect(form.getByLabel("Model", { exact: true })).toHaveAttribute("placeholder", agent.example);
    await form.getByLabel("Model", { exact: true }).fill(MODEL);
    await form.getByRole("button", { name: "Start session" }).click();
    await expect(page).toHaveURL(/\/sessions\/[\w-]+$/, { timeout: 60_000 });
    sessionIds.push(new URL(page.url()).pathname.split("/").pop() ?? "");
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`${agent.label} · ${MODEL} in ${PROJECT}`);
    await waitForTerminal(page);
    // straight to its prompt: no theme picker, folder trust or "use this API key?" first
    await expect(rows(page)).toContainText(agent.ready, { timeout: 90_000 });
    await prompt(page, "Please write the file.", "I wrote from-codex.txt for you.");
    await expect(page.getByTestId("session-thread")).toHaveText(/^[0-9a-f-]{36}$/, { timeout: 20_000 });
    await shoot(page, `${agent.label}-answered`);
  });

  test(`${agent.exit}, then Resume continues the same ${agent.label} conversation`, async () => {
    const thread = await page.getByTestId("session-thread").textContent();
    await page.getByTestId("terminal").click();
    await page.keyboard.type(agent.exit);
    await page.waitForTimeout(400);
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("session-state")).toHaveText("exited", { timeout: 60_000 });
    await expect(page.getByText(new RegExp(`${agent.label} ended \\(exit code \\d+\\)`))).toBeVisible();
    await page.getByRole("button", { name: "Resume", exact: true }).click();
    await expect(page.getByTestId("session-state")).toHaveText("running", { timeout: 60_000 });
    // the resumed TUI shows the conversation so far
    await expect(rows(page)).toContainText("Please write the file.", { timeout: 90_000 });
    await expect(rows(page)).toContainText(agent.ready, { timeout: 60_000 });
    await prompt(page, "Do you remember.", "Still the same conversation: I remember from-codex.txt.");
    await expect(page.getByTestId("session-thread")).toHaveText(thread ?? "");
    await shoot(page, `${agent.label}-resumed`);
  });
}
