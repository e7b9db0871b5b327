import { createRequire } from "node:module";
import type * as XtermHeadless from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { silenceQueryReplies } from "./terminal-replies";

// the same parser and reply code as the browser's xterm.js, without a DOM
const { Terminal } = createRequire(import.meta.url)("@xterm/headless") as typeof XtermHeadless;

async function repliesTo(output: string, silenced: boolean): Promise<string[]> {
  const terminal = new Terminal({ cols: 80, rows: 24, allowProposedApi: true });
  if (silenced) silenceQueryReplies(terminal);
  const replies: string[] = [];
  terminal.onData((data) => replies.push(data));
  await new Promise<void>((resolve) => terminal.write(output, resolve));
  const text = terminal.buffer.active.getLine(0)?.translateToString(true) ?? "";
  terminal.dispose();
  return [...replies, `screen:${text}`];
}

const QUERIES = "\x1b[c\x1b[>c\x1b[6n\x1b[5n\x1b[?2004$p\x1b]10;?\x07\x1b]11;?\x07";

describe("silenceQueryReplies", () => {
  it("an unsilenced terminal answers a program's queries as if typed (what reached the TTY twice)", async () => {
    const replies = await repliesTo(QUERIES, false);
    expect(replies).toContain("\x1b[?1;2c");
    expect(replies.length).toBeGreaterThan(3);
  });

  it("silenced, it answers none of them and still draws the output around them", async () => {
    expect(await repliesTo(`before${QUERIES}after`, true)).toEqual(["screen:beforeafter"]);
  });
});
