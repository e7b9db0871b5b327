import fs from "node:fs";
import path from "node:path";
import { io as connectSocket, type Socket } from "socket.io-client";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../src/server/core/db/client";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { terminalEvents, type SessionView, type TerminalSizeMessage } from "../src/shared/session-schemas";
import { ensureAgentImage } from "./support/agent-image";
import { launch, type Launched } from "./support/launch";
import { tempDir } from "./support/temp";

/**
 * Issue 26, point 10, through the built product's socket.io server and a real shell container: the admin
 * window in control sizes the TTY; another admin window (the same browser's, or another's) and a viewer are told
 * the size and who decides it, and their sizes are dropped until an admin window claims control; when the
 * window in control goes, the one active before it takes over. `stty size` in the container is the judge.
 */
const running: Launched[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const app of running) await app.stop("SIGTERM");
});

async function trpc<T>(app: Launched, procedure: string, input: unknown, kind: "query" | "mutation" = "mutation") {
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

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

/** The browser cookie a sign-in link (`/?token=…`) sets. */
async function signIn(app: Launched, token: string): Promise<string> {
  const response = await fetch(`${app.base}/?token=${token}`, { redirect: "manual" });
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith("invariant_session="));
  if (!cookie) throw new Error(`signing in answered ${response.status} without a cookie`);
  return cookie.split(";")[0] ?? "";
}

/** A browser window's terminal socket: what it was told about the size, and the shell's output. */
async function openWindow(app: Launched, sessionId: string, headers: Record<string, string>) {
  const socket = connectSocket(app.base, {
    path: "/socket.io",
    transports: ["websocket"],
    extraHeaders: headers,
    reconnection: false,
  });
  sockets.push(socket);
  const heard: TerminalSizeMessage[] = [];
  let output = "";
  socket.on(terminalEvents.size, (message: TerminalSizeMessage) => heard.push(message));
  socket.on(terminalEvents.output, (chunk: { data: ArrayBuffer | Uint8Array }) => {
    output += Buffer.from(chunk.data as ArrayBuffer).toString("utf8");
  });
  await new Promise<void>((resolve, reject) => {
    socket.on("connect", () => resolve());
    socket.on("connect_error", reject);
  });
  socket.emit(terminalEvents.attach, { sessionId });
  const last = () => heard.at(-1);
  return {
    socket,
    /** Waits until the last word on the size is this (`columns×rows · sizedBy`). */
    told: (expected: string) =>
      expect
        .poll(() => (last() ? `${last()?.columns}×${last()?.rows} · ${last()?.sizedBy}` : "nothing"), {
          timeout: 10_000,
        })
        .toBe(expected),
    resize: (columns: number, rows: number, claim?: boolean) =>
      socket.emit(terminalEvents.resize, { sessionId, columns, rows, ...(claim === undefined ? {} : { claim }) }),
    /** What `stty size` says in the container now, as `rows columns`, asked from this window. */
    async shellSize(): Promise<string> {
      const marker = `size-${Math.random().toString(36).slice(2, 8)}`;
      socket.emit(terminalEvents.input, { sessionId, data: `echo "${marker} $(stty size)"\r` });
      const pattern = new RegExp(`${marker} (\\d+ \\d+)`);
      await expect.poll(() => pattern.test(output), { timeout: 10_000 }).toBe(true);
      return pattern.exec(output)?.[1] ?? "";
    },
  };
}

describe("who sizes a session's terminal", () => {
  it("takes sizes from the admin window in control only, and hands control on when it goes", async () => {
    const dataDir = tempDir("terminal-size");
    const projectDir = tempDir("terminal-size-project");
    fs.writeFileSync(path.join(projectDir, "README.md"), "# sizes\n");
    const app = await launch({ dataDir });
    running.push(app);
    const project = await trpc<{ id: string }>(app, "projects.add", { hostPath: projectDir });
    const image = await ensureAgentImage(createDockerRuntime());
    const db = await openDb({ file: dataDirPaths(dataDir).database });
    await db.environmentVersion.create({
      data: { projectId: project.id, version: 1, imageTag: image, origin: "base", status: "ready", active: true },
    });
    await db.$disconnect();
    const session = await trpc<SessionView>(app, "sessions.start", { projectId: project.id, kind: "shell" });
    await expect
      .poll(async () => (await trpc<SessionView>(app, "sessions.get", { sessionId: session.id }, "query")).state, {
        timeout: 30_000,
      })
      .toBe("running");
    const start = `${session.columns}×${session.rows}`;
    const adminBrowser = { cookie: await signIn(app, app.token) };
    const { url } = await trpc<{ url: string }>(app, "system.createViewerLink", { label: "Phone watcher" });
    const viewerBrowser = { cookie: await signIn(app, new URL(url).searchParams.get("token") ?? "") };

    // the first admin window to open the terminal is in control: its size reaches the TTY and every window
    const desk = await openWindow(app, session.id, adminBrowser);
    await desk.told(`${start} · this-window`);
    desk.resize(150, 40);
    await desk.told("150×40 · this-window");
    expect(await desk.shellSize()).toBe("40 150");

    // opening it elsewhere changes nothing, and each window is told who sizes it
    const tab = await openWindow(app, session.id, adminBrowser);
    const phone = await openWindow(app, session.id, { authorization: `Bearer ${app.token}` });
    const viewer = await openWindow(app, session.id, viewerBrowser);
    await tab.told("150×40 · your-other-window");
    await phone.told("150×40 · another-admin-window");
    await viewer.told("150×40 · another-admin-window");
    phone.resize(45, 30);
    tab.resize(60, 20);
    viewer.resize(45, 30, true);
    await settle(); // a size taken would be on the TTY by now
    expect(await desk.shellSize()).toBe("40 150");

    // claiming control: the phone's size is taken, and every window hears who decides now
    phone.resize(45, 30, true);
    await phone.told("45×30 · this-window");
    await desk.told("45×30 · another-admin-window");
    await tab.told("45×30 · another-admin-window");
    await viewer.told("45×30 · another-admin-window");
    expect(await desk.shellSize()).toBe("30 45");
    desk.resize(150, 40);
    await settle();
    expect(await phone.shellSize()).toBe("30 45");

    // the phone goes: the desktop, in control before it, takes over (its page then sends its own size)
    phone.socket.close();
    await desk.told("45×30 · this-window");
    await tab.told("45×30 · your-other-window");
    await viewer.told("45×30 · another-admin-window");
    desk.resize(150, 40);
    await viewer.told("150×40 · another-admin-window");
    expect(await desk.shellSize()).toBe("40 150");

    // with every admin window gone, the viewer hears that nobody sizes it
    desk.socket.close();
    tab.socket.close();
    await viewer.told("150×40 · no-window");
    await trpc(app, "sessions.finish", { sessionId: session.id });
  }, 240_000);
});
