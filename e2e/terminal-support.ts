import fs from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";

/** The session page's xterm.js terminal. */
const terminalOf = (page: Page) => page.getByTestId("terminal");

/**
 * The text xterm.js renders, one entry per terminal row (its DOM renderer's `.xterm-rows`), non-breaking
 * spaces as spaces and trailing blanks trimmed: what a person reads on the screen.
 */
export function renderedLines(page: Page): Promise<string[]> {
  return terminalOf(page)
    .locator(".xterm-rows")
    .evaluate((rows) => [...rows.children].map((row) => (row.textContent ?? "").replaceAll("\u00a0", " ").trimEnd()));
}

/** Waits until the terminal shows the session's screen (the "Connecting…" note is gone and rows render). */
export async function waitForTerminal(page: Page): Promise<void> {
  await expect(page.getByText("Connecting to the session…")).toHaveCount(0);
  await expect(terminalOf(page).locator(".xterm-rows > div").first()).toBeAttached();
}

/**
 * Types a line into the terminal as a person does: the keys, then Enter on its own (a burst that holds
 * Enter counts as a paste for a TUI such as Codex).
 */
export async function typeLine(page: Page, line: string): Promise<void> {
  await terminalOf(page).click();
  await page.keyboard.type(line);
  await page.keyboard.press("Enter");
}

/** A screenshot for docs/sessions.md when SESSIONS_SCREENSHOTS names a directory; else nothing. */
export async function sessionScreenshot(page: Page, name: string, fullPage = false): Promise<void> {
  const dir = process.env.SESSIONS_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage });
}
