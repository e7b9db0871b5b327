import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { tempDir } from "../../../test/support/temp";
import { createTerminalHub } from "./terminal-hub";

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
    await hub.open({ sessionId: "s1", containerId, columns: 80, rows: 24, screenFile });
    hub.input("s1", "echo $((6*7))\r");
    await until(() => received.join("").includes("42"), "42 from the shell");

    const first = await new Promise<string>((resolve) => hub.screen("s1", (screen) => resolve(screen?.data ?? "")));
    expect(first).toContain("echo $((6*7))");
    expect(first).toMatch(/\r?\n42/);

    hub.input("s1", "stty size\r");
    await until(() => received.join("").includes("24 80"), "stty size 24 80");
    await hub.resize({ sessionId: "s1", containerId, columns: 100, rows: 30 });
    hub.input("s1", "stty size\r");
    await until(() => received.join("").includes("30 100"), "stty size after resize");

    // detached and attached again (a web process restart): the saved screen comes back first
    hub.close("s1");
    expect(JSON.parse(fs.readFileSync(screenFile, "utf8"))).toMatchObject({ columns: 100, rows: 30 });
    await hub.open({ sessionId: "s1", containerId, columns: 100, rows: 30, screenFile });
    const restored = await new Promise<string>((resolve) => hub.screen("s1", (screen) => resolve(screen?.data ?? "")));
    expect(restored).toContain("30 100");

    hub.input("s1", "exit 7\r");
    await until(() => exits.length > 0, "the shell's exit");
    expect(exits).toEqual([7]);
    hub.closeAll();
  }, 60_000);
});
