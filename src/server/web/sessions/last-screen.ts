import { createRequire } from "node:module";
import type * as XtermHeadless from "@xterm/headless";
import type { SessionLastScreen } from "../../../shared/session-schemas";
import { readScreen } from "./terminal-hub";

const { Terminal: HeadlessTerminal } = createRequire(import.meta.url)("@xterm/headless") as typeof XtermHeadless;

/** At most this many lines of a session's last screen (its scrollback included) are shown. */
export const LAST_SCREEN_MAX_LINES = 2_000;

/**
 * A session's last screen as text, one entry per terminal line (the saved screen, scrollback first, with
 * trailing blanks and blank lines at the end dropped): what its terminal showed when it ended, read-only
 * on the page of a session that no longer runs. Null when no screen was saved.
 */
export async function lastScreenOf(screenFile: string): Promise<SessionLastScreen | null> {
  const saved = readScreen(screenFile);
  if (!saved) return null;
  const terminal = new HeadlessTerminal({
    cols: saved.columns,
    rows: saved.rows,
    scrollback: LAST_SCREEN_MAX_LINES,
    allowProposedApi: true,
  });
  try {
    await new Promise<void>((resolve) => terminal.write(saved.data, resolve));
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let index = 0; index < buffer.length; index++)
      lines.push(buffer.getLine(index)?.translateToString(true) ?? "");
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return { lines: lines.slice(-LAST_SCREEN_MAX_LINES), columns: saved.columns, rows: saved.rows };
  } finally {
    terminal.dispose();
  }
}
