import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Terminal } from "@xterm/headless";
import { io as connectSocket, type Socket } from "socket.io-client";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../src/server/core/db/client";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { terminalEvents, type SessionView, type TerminalScreen } from "../src/shared/session-schemas";
import { ensureAgentImage } from "./support/agent-image";
import { launch, signalProcess, type Launched } from "./support/launch";
import { tempDir } from "./support/temp";

/**
 * Issue 12, crash: SIGKILL of the launcher while a terminal session runs loses no session. After a
 * restart the session is listed as running, a browser that attaches gets its earlier screen back and
 * types on, and the reconciler kept the session's container (the same one) while it removed nothing else.
 */
const running: Launched[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const app of running) await app.stop("SIGTERM");
});

/** A tRPC call as the dashboard makes it: a query's input in the URL, a mutation's in the body. */
async function trpc<T>(
  app: Launched,
  procedure: string,
  input: unknown,
  kind: "query" | "mutation" = "mutation",
): Promise<T> {
  const query = kind === "query" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
  const response = await fetch(`${app.base}/api/trpc/${procedure}${query}`, {
    method: kind === "query" ? "GET" : "POST",
    headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
    ...(kind === "mutation" ? { body: JSON.stringify(input) } : {}),
  });
  const json = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok) throw new Error(`${procedure}: ${response.status} ${JSON.stringify(json.error)}`);
  return json.result?.data as T;
}

/** A browser's terminal: attaches over socket.io with the admin token and renders what it gets. */
async function attach(app: Launched, sessionId: string) {
  const socket = connectSocket(app.base, {
    path: "/socket.io",
    transports: ["websocket"],
    extraHeaders: { authorization: `Bearer ${app.token}` },
    reconnection: false,
  });
  sockets.push(socket);
  const terminal = new Terminal({ cols: 100, rows: 30, allowProposedApi: true });
  const screen = new Promise<TerminalScreen>((resolve) =>
    socket.on(terminalEvents.screen, (received: TerminalScreen) => {
      terminal.write(received.data);
      resolve(received);
    }),
  );
  socket.on(terminalEvents.output, (output: { data: ArrayBuffer | Uint8Array }) =>
    terminal.write(new Uint8Array(output.data)),
  );
  await new Promise<void>((resolve, reject) => {
    socket.on("connect", () => resolve());
    socket.on("connect_error", reject);
  });
  socket.emit(terminalEvents.attach, { sessionId });
  const text = () => {
    const buffer = terminal.buffer.active;
    return Array.from({ length: buffer.length }, (_, i) => buffer.getLine(i)?.translateToString(true) ?? "").join("\n");
  };
  return {
    screen,
    type: async (line: string) => {
      socket.emit(terminalEvents.input, { sessionId, data: line });
      await new Promise((resolve) => setTimeout(resolve, 300));
      socket.emit(terminalEvents.input, { sessionId, data: "\r" });
    },
    waitFor: (pattern: RegExp) =>
      expect
        .poll(() => new Promise<string>((resolve) => terminal.write("", () => resolve(text()))), {
          timeout: 30_000,
        })
        .toMatch(pattern),
  };
}

const containersOf = (sessionId: string) =>
  execFileSync("docker", ["ps", "-q", "--no-trunc", "--filter", `label=invariant.session=${sessionId}`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);

describe("a terminal session when the launcher is killed", () => {
  it("is listed after a restart, reattaches with its screen and its container was kept", async () => {
    const dataDir = tempDir("session-crash");
    const projectDir = tempDir("session-crash-project");
    fs.writeFileSync(path.join(projectDir, "README.md"), "# crash drill\n");
    const first = await launch({ dataDir, detached: true });
    running.push(first);
    const project = await trpc<{ id: string }>(first, "projects.add", { hostPath: projectDir });
    // the project's environment: the suite's agent image, recorded as its ready version
    const image = await ensureAgentImage(createDockerRuntime());
    const db = await openDb({ file: dataDirPaths(dataDir).database });
    await db.environmentVersion.create({
      data: { projectId: project.id, version: 1, imageTag: image, origin: "base", status: "ready", active: true },
    });
    await db.$disconnect();

    const session = await trpc<SessionView>(first, "sessions.start", { projectId: project.id, kind: "shell" });
    const browser = await attach(first, session.id);
    await browser.screen;
    await browser.type("echo before-the-crash-$((6*7))");
    await browser.waitFor(/^before-the-crash-42$/m);
    // the server saves the screen a second after output (what a crash can lose is that last second)
    const screenFile = dataDirPaths(dataDir).session(session.id).screen;
    await expect
      .poll(() => (fs.existsSync(screenFile) ? fs.readFileSync(screenFile, "utf8") : ""), { timeout: 10_000 })
      .toContain("before-the-crash-42");
    const [container] = containersOf(session.id);
    expect(container).toBeDefined();

    // SIGKILL: nothing of the launcher runs its shutdown; its children follow it (issue 18)
    signalProcess(first.child.pid, "SIGKILL", { group: true });
    await first.exited;
    expect(containersOf(session.id)).toEqual([container]);

    const second = await launch({ dataDir, detached: true });
    running.push(second);
    const listed = await trpc<SessionView[]>(second, "sessions.list", {}, "query");
    expect(listed.map((s) => [s.id, s.state])).toEqual([[session.id, "running"]]);
    const again = await attach(second, session.id);
    expect((await again.screen).data).toContain("before-the-crash-42");
    await again.type("echo after-the-restart-$((6*7))");
    await again.waitFor(/^after-the-restart-42$/m);
    // the reconciler and the orphan sweep kept the running session's container: the same one
    expect(containersOf(session.id)).toEqual([container]);

    await trpc(second, "sessions.finish", { sessionId: session.id });
    expect(containersOf(session.id)).toEqual([]);
  }, 240_000);
});
