import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { tempDir } from "../../../../test/support/temp";
import { Terminal } from "@xterm/headless";
import { createTerminalHub, type ScreenNow } from "./terminal-hub";

const runtime = createDockerRuntime();
const containers: string[] = [];

afterAll(async () => {
  for (const id of containers) await runtime.removeContainer(id);
});

async function shellContainer(): Promise<string> {
  const id = await runtime.createContainer({
    image: "invariant-base:bookworm",
    command: ["/bin/bash", "-l"],
    env: { TERM: "xterm-256color" },
    labels: { project: "p-terminal-hub", role: "session", session: "s-terminal-hub" },
    limits: { cpus: 1, memoryBytes: 256 * 1024 * 1024, swapBytes: 0, pids: 64 },
    network: "none",
    tty: true,
  });
  containers.push(id);
  await runtime.startContainer(id);
  return id;
}

/** What a watcher that joins now is sent: the screen, then the bytes broadcast that it does not hold yet. */
const joined = (screen: ScreenNow | null) =>
  (screen?.data ?? "") + (screen?.pending ? Buffer.from(screen.pending).toString("utf8") : "");

/** The visible lines of a terminal that took `data` (written, then parsed). */
async function rendered(data: string[], size: { cols: number; rows: number }): Promise<string[]> {
  const terminal = new Terminal({ ...size, allowProposedApi: true });
  for (const chunk of data) terminal.write(chunk);
  await new Promise<void>((resolve) => terminal.write("", resolve));
  const buffer = terminal.buffer.active;
  const lines = Array.from(
    { length: size.rows },
    (_, i) => buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? "",
  );
  terminal.dispose();
  return lines;
}

function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (check()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

describe("the terminal hub", () => {
  it("keeps a session's screen on the server: a later watcher gets it, then the live bytes, in order", async () => {
    const containerId = await shellContainer();
    const dir = tempDir("terminal-hub-");
    const received: string[] = [];
    const exits: number[] = [];
    const hub = createTerminalHub({
      runtime,
      broadcast: (_id, data) => received.push(Buffer.from(data).toString("utf8")),
      onExit: (_id, code) => exits.push(code),
    });
    const screenFile = path.join(dir, "screen.json");
    await (
      await hub.open({ sessionId: "s1", containerId, columns: 80, rows: 24, screenFile })
    ).started;
    hub.input("s1", "echo $((6*7))\r");
    await until(() => received.join("").includes("42"), "42 from the shell");

    const first = await new Promise<string>((resolve) => hub.screen("s1", (screen) => resolve(joined(screen))));
    expect(first).toContain("echo $((6*7))");
    expect(first).toMatch(/\r?\n42/);

    hub.input("s1", "stty size\r");
    await until(() => received.join("").includes("24 80"), "stty size 24 80");
    await hub.resize({ sessionId: "s1", containerId, columns: 100, rows: 30 });
    hub.input("s1", "stty size\r");
    await until(() => received.join("").includes("30 100"), "stty size after resize");

    // detached and attached again (a web process restart): the saved screen comes back first
    await hub.close("s1");
    expect(JSON.parse(fs.readFileSync(screenFile, "utf8"))).toMatchObject({ columns: 100, rows: 30 });
    await (
      await hub.open({ sessionId: "s1", containerId, columns: 100, rows: 30, screenFile })
    ).started;
    const restored = await new Promise<string>((resolve) => hub.screen("s1", (screen) => resolve(joined(screen))));
    expect(restored).toContain("30 100");

    hub.input("s1", "exit 7\r");
    await until(() => exits.length > 0, "the shell's exit");
    expect(exits).toEqual([7]);
    await hub.closeAll();
  }, 60_000);

  it("broadcasts output before its own terminal parses it; a watcher joining mid-stream gets the screen and the unparsed bytes, and misses nothing", async () => {
    const containerId = await shellContainer();
    const dir = tempDir("terminal-hub-");
    const live: string[] = [];
    let watcher: string[] | null = null;
    const hub = createTerminalHub({
      runtime,
      broadcast: (_id, data) => {
        const text = Buffer.from(data).toString("utf8");
        live.push(text);
        watcher?.push(text);
      },
      onExit: () => undefined,
    });
    await (
      await hub.open({ sessionId: "s2", containerId, columns: 80, rows: 24, screenFile: path.join(dir, "screen.json") })
    ).started;
    hub.input("s2", 'seq 1 200000; echo E""ND\r');
    // join while the numbers stream in, as a browser opening the page then would
    await until(() => live.join("").includes("\n1000"), "the output to begin");
    hub.screen("s2", (screen) => {
      expect(screen?.pending).not.toBeNull(); // bytes already broadcast, not parsed yet
      watcher = [joined(screen)];
    });
    await until(() => live.join("").includes("\nEND"), "the end of the output");
    await new Promise((resolve) => setTimeout(resolve, 300)); // the prompt after it
    const everything = await rendered(live, { cols: 80, rows: 24 });
    expect(everything.join("\n")).toContain("200000\nEND");
    expect(await rendered(watcher ?? [], { cols: 80, rows: 24 })).toEqual(everything);
    await hub.closeAll();
  }, 60_000);
});
