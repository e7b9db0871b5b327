import { describe, expect, it } from "vitest";
import { Terminal } from "@xterm/headless";
import { createScreenFeed, FLOOD_BYTES, FLOOD_PAUSE_MS, HOLD_LIMIT_BYTES } from "./screen-feed";

const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The terminal's lines, trimmed, the empty ones dropped. */
const screenText = (terminal: Terminal) => {
  const lines: string[] = [];
  for (let i = 0; i < terminal.buffer.active.length; i++) {
    const line = terminal.buffer.active.getLine(i)?.translateToString(true).trimEnd() ?? "";
    if (line) lines.push(line);
  }
  return lines.join("\n");
};
/** `size` bytes of filler lines (what a `cat` sends a terminal). */
const filler = (size: number) => bytes(`${"x".repeat(63)}\r\n`.repeat(Math.ceil(size / 65)).slice(0, size));

/** A real headless terminal, and what the feed has handed it so far. */
function recordedTerminal(options: { scrollback: number }) {
  const terminal = new Terminal({ cols: 80, rows: 24, scrollback: options.scrollback, allowProposedApi: true });
  const given: string[] = [];
  const write = (data: string | Uint8Array, done?: () => void) => {
    given.push(typeof data === "string" ? data : Buffer.from(data).toString());
    terminal.write(data, done);
  };
  const parsed = () => new Promise<void>((resolve) => terminal.write("", resolve));
  return { terminal, given: () => given.join(""), write, parsed };
}

describe("the screen feed of a session's headless terminal", () => {
  it("parses everyday output at once, and answers the program's queries without waiting", async () => {
    const { terminal, write, parsed } = recordedTerminal({ scrollback: 100 });
    const replies: string[] = [];
    terminal.onData((reply) => replies.push(reply));
    const feed = createScreenFeed({ write });
    feed.add(bytes("$ echo hi\r\nhi\r\n$ "));
    feed.add(bytes("\x1b[6n")); // where is the cursor?
    expect(feed.pending()).not.toBeNull(); // broadcast, parsed a moment later
    await parsed(); // no pause needed
    expect(screenText(terminal)).toBe("$ echo hi\nhi\n$");
    expect(replies).toEqual(["\x1b[3;3R"]);
    expect(feed.pending()).toBeNull();
    terminal.dispose();
  });

  it("holds a flood past FLOOD_BYTES until it pauses, with every byte in pending() meanwhile", async () => {
    const { terminal, given, write, parsed } = recordedTerminal({ scrollback: 100 });
    const feed = createScreenFeed({ write });
    feed.add(filler(FLOOD_BYTES)); // to the terminal at once
    feed.add(bytes("HELD-1\r\n")); // the flood is on: held
    feed.add(bytes("HELD-2\r\n"));
    expect(given()).toHaveLength(FLOOD_BYTES);
    expect(Buffer.from(feed.pending() ?? []).toString()).toMatch(/HELD-1\r\nHELD-2\r\n$/); // for a joining watcher
    expect(Buffer.from(feed.pending() ?? []).byteLength).toBe(FLOOD_BYTES + 16);
    await idle(FLOOD_PAUSE_MS * 3); // the output paused
    expect(given()).toMatch(/HELD-1\r\nHELD-2\r\n$/);
    await parsed();
    expect(screenText(terminal)).toMatch(/\nHELD-1x*\nHELD-2$/); // (the filler's last line ended on a bare \r)
    expect(feed.pending()).toBeNull();
    terminal.dispose();
  });

  it("gives a flood that never pauses to the terminal once HOLD_LIMIT_BYTES are held; settled() releases the rest", async () => {
    const { terminal, given, write, parsed } = recordedTerminal({ scrollback: 10 });
    const feed = createScreenFeed({ write });
    feed.add(filler(FLOOD_BYTES));
    const chunk = filler(1024 * 1024);
    for (let held = 0; held < HOLD_LIMIT_BYTES; held += chunk.byteLength) feed.add(chunk);
    expect(given()).toHaveLength(FLOOD_BYTES + HOLD_LIMIT_BYTES); // released at the limit, not at a pause
    feed.add(bytes("AFTER-LIMIT\r\n")); // still flooding: held again
    expect(given()).not.toContain("AFTER-LIMIT");
    await feed.settled(); // no waiting for a pause
    expect(given()).toMatch(/AFTER-LIMIT\r\n$/);
    expect(screenText(terminal)).toMatch(/AFTER-LIMIT$/);
    expect(feed.pending()).toBeNull();
    await parsed();
    feed.dispose();
    terminal.dispose();
  }, 30_000);
});
