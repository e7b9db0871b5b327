import fs from "node:fs";
import path from "node:path";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { readE2eState, type E2eState } from "./e2e-state";
import { addProjectAndPrepare, copyCalendarProject } from "./keep-result-support";
import { renderedLines, typeLine, waitForTerminal } from "./terminal-support";

/**
 * Save installed tools asks first (issue 26, point 8): in a private shell session on the real engine, a
 * container that changed nothing outside /workspace and /tmp says "Nothing was installed" and offers no save;
 * after writing a tool into ~/.local/bin the confirmation counts the paths, names the folder and the size,
 * and saving makes environment version 2 — at 1280 and 390 px.
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

const SHOTS = process.env.SAVE_TOOLS_SCREENSHOTS ?? "/tmp/shots-save-tools";
let state: E2eState;
let admin: BrowserContext;
let page: Page;

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

test.beforeAll(async ({ browser }) => {
  state = readE2eState();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  await page.goto(state.printedUrl);
});

test.afterAll(async () => {
  await admin.close();
});

test("nothing installed: says so and saves nothing; a tool installed: shows what changed, then saves version 2", async () => {
  const projectDir = copyCalendarProject(state, "calendar-tools");
  await addProjectAndPrepare(page, state, projectDir);
  await page.goto(`${state.origin}/sessions`);
  const form = page.getByRole("form", { name: "Start a session" });
  await form.getByRole("combobox", { name: "Project" }).selectOption({ label: "calendar-tools" });
  await form.getByLabel("A shell").check();
  await form.getByRole("button", { name: "Start session" }).click();
  await expect(page).toHaveURL(/\/sessions\/[\w-]+$/);
  await waitForTerminal(page);
  // the shell may drop keys typed before it draws its first prompt: type until it answers
  await expect(async () => {
    await typeLine(page, "echo ready-$((20+1))");
    await expect.poll(() => renderedLines(page), { timeout: 3_000 }).toContain("ready-21");
  }).toPass({ timeout: 30_000 });

  await page.getByRole("button", { name: "Save installed tools…" }).click();
  const confirm = page.getByTestId("save-tools-confirm");
  await expect(confirm.getByTestId("save-tools-nothing")).toContainText("Nothing was installed in this session");
  await expect(confirm.getByRole("button", { name: "Save as a new version" })).toHaveCount(0);
  await shot("1280-nothing-installed");
  await confirm.getByRole("button", { name: "Close" }).click();
  await expect(confirm).toHaveCount(0);

  await typeLine(
    page,
    "mkdir -p ~/.local/bin && head -c 200000 /dev/urandom > ~/.local/bin/mytool && echo done-$((1+1))",
  );
  await expect.poll(() => renderedLines(page)).toContain("done-2");
  await page.getByRole("button", { name: "Save installed tools…" }).click();
  const changes = confirm.getByTestId("save-tools-changes");
  await expect(changes).toContainText(/added [1-9]\d*, changed \d+ and deleted \d+ paths? \(most in \/root/);
  await expect(changes).toContainText(/KiB|MiB/);
  await expect(confirm).toContainText("every future study and session");
  await shot("1280-confirm");
  await page.setViewportSize({ width: 390, height: 844 });
  await confirm.scrollIntoViewIfNeeded();
  await shot("390-confirm");
  await page.setViewportSize({ width: 1280, height: 900 });
  await confirm.getByRole("button", { name: "Save as a new version" }).click();
  await expect(page.getByText(/Saved as environment version 2; new sessions and studies use it\./)).toBeVisible({
    timeout: 60_000,
  });
  await shot("1280-saved");
  await page.getByRole("button", { name: "Finish…" }).click();
  await page.getByRole("button", { name: "Finish: remove its container" }).click();
  await expect(page.getByTestId("session-state")).toHaveText("finished", { timeout: 60_000 });
});
