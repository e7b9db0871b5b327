import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import type * as XtermHeadless from "@xterm/headless";
import { SerializeAddon } from "@xterm/addon-serialize";
import { afterEach, describe, expect, it } from "vitest";
import { lastScreenOf } from "./last-screen";

const { Terminal } = createRequire(import.meta.url)("@xterm/headless") as typeof XtermHeadless;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A screen saved as the terminal hub saves one: a real terminal's serialized content and its size. */
async function savedScreen(output: string, columns = 40, rows = 6): Promise<string> {
  const terminal = new Terminal({ cols: columns, rows, scrollback: 100, allowProposedApi: true });
  const serializer = new SerializeAddon();
  terminal.loadAddon(serializer);
  await new Promise<void>((resolve) => terminal.write(output, resolve));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "last-screen-"));
  dirs.push(dir);
  const file = path.join(dir, "screen.json");
  fs.writeFileSync(file, JSON.stringify({ data: serializer.serialize({ scrollback: 100 }), columns, rows }));
  terminal.dispose();
  return file;
}

describe("lastScreenOf", () => {
  it("reads a saved screen as its text: colours dropped, scrollback kept, trailing blank lines gone", async () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`);
    const file = await savedScreen(`\x1b[1;32mgreen\x1b[0m done\r\n${lines.join("\r\n")}\r\n\r\n`);
    const screen = await lastScreenOf(file);
    expect(screen).toMatchObject({ columns: 40, rows: 6 });
    expect(screen?.lines).toEqual(["green done", ...lines]);
  });

  it("is null when no screen was saved, or the file is not one", async () => {
    expect(await lastScreenOf(path.join(os.tmpdir(), "no-such-dir", "screen.json"))).toBeNull();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "last-screen-"));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, "screen.json"), "{not json");
    expect(await lastScreenOf(path.join(dir, "screen.json"))).toBeNull();
  });
});
