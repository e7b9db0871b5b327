import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarProject, createDockerRuntime, FAKE_KEY, tempDir } from "./support/study-harness";
import type { SessionWeb, TerminalWatcher } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";
import { sessionOwnerOf } from "../src/server/web/sessions/session-container";
import { workspaceFiles } from "../src/server/core/workspaces/workspace-files";
import { readWorkspace } from "../src/server/core/workspaces/workspace-store";
import { startWorker } from "../worker/main";
import type { SessionView } from "../src/shared/session-schemas";

/**
 * Issue 12 on the real stack: terminal sessions in containers of a project's environment (the real
 * Docker engine, the real Codex TUI against the mock model, SQLite, Redis), driven through the
 * session service as the browser's socket drives it.
 */
const runtime = createDockerRuntime();
const CODEX_SCRIPT = {
  description: "A terminal session: writes a file, replies; a second turn proves the conversation was resumed.",
  usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 20, reasoningTokens: 0 },
  steps: [
    { kind: "write-file", path: "from-codex.txt", content: "written in a session\n" },
    { kind: "reply", text: "I wrote from-codex.txt for you." },
    { kind: "reply", text: "Still the same conversation: I remember from-codex.txt." },
  ],
};
let stack: SessionStack;
let web: SessionWeb;
let dataDir: string;
let projectDir: string;
let projectId: string;

function sessionContainers(sessionId: string): string[] {
  const out = execFileSync("docker", ["ps", "-aq", "--filter", `label=invariant.session=${sessionId}`], {
    encoding: "utf8",
  });
  return out.split("\n").filter(Boolean);
}

const waitForState = (sessionId: string, state: SessionView["state"], timeoutMs?: number) =>
  web.waitForState(sessionId, state, timeoutMs);
const type = (sessionId: string, text: string) => web.type(sessionId, text);

/**
 * Types a prompt into the Codex TUI and submits it, then waits for `reply`. The TUI takes a burst of
 * characters for a paste, and an Enter that arrives with it (a starved container reads both at once) for a
 * new line: so Enter goes once the composer shows the text, and again while no reply came (an Enter in an
 * empty composer does nothing).
 */
async function prompt(options: { sessionId: string; terminal: TerminalWatcher; text: string; reply: RegExp }) {
  const { sessionId, terminal, text, reply } = options;
  web.core.services.sessions.input(sessionId, text);
  await terminal.waitFor(new RegExp(`› ${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`), 30_000);
  for (let attempt = 1; ; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    web.core.services.sessions.input(sessionId, "\r");
    try {
      return await terminal.waitFor(reply, attempt < 3 ? 15_000 : 60_000);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

beforeAll(async () => {
  projectDir = calendarProject();
  // a project belongs to a person, not to root: a direct session runs as the directory's owner
  execFileSync("chown", ["-R", "1000:1000", projectDir]);
  stack = await startSessionStack({ name: "sessions", runtime, projectDir, scripts: { "session-chat": CODEX_SCRIPT } });
  ({ web, dataDir, projectId } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe("a shell session in direct mode", () => {
  it("runs in the project directory, holds the lease, exits, resumes, survives a restart and finishes", async () => {
    const sessions = web.core.services.sessions;
    await web.core.services.projects.update({ id: projectId, settings: { openFiles: 4096 } });
    const session = await sessions.start({
      projectId,
      kind: "shell",
      mode: "direct",
      startedBy: "Ada",
      columns: 100,
      rows: 30,
    });
    // the answer comes once its container is created and attached; it runs a moment later
    expect(session).toMatchObject({ state: "starting", mode: "direct", startedBy: "Ada" });
    await waitForState(session.id, "running");
    const terminal = await web.watch(session.id);
    await type(session.id, "echo $((6*7)) > answer.txt; cat answer.txt; stty size; echo nofile-$(ulimit -n)");
    await terminal.waitFor(/^42$/m);
    await terminal.waitFor(/^30 100$/m);
    // the project's limits, as its trials get them (here: its open-files limit, set below the default)
    await terminal.waitFor(/^nofile-4096$/m);
    expect(fs.readFileSync(path.join(projectDir, "answer.txt"), "utf8")).toBe("42\n");
    // written as the project's owner, so the user's own files stay theirs
    expect(fs.statSync(path.join(projectDir, "answer.txt")).uid).toBe(1000);

    // a second direct session on the project is refused with the holder's name; a private copy is not
    await expect(sessions.start({ projectId, kind: "shell", mode: "direct", startedBy: "Bob" })).rejects.toThrow(
      /already has a direct session, held by Ada/,
    );

    // the web process restarts: the container keeps running, and the screen comes back
    terminal.stop();
    web = await stack.restartWeb();
    await waitForState(session.id, "running");
    const again = await web.watch(session.id);
    await again.waitFor(/^42$/m);
    await type(session.id, "echo after-restart");
    await again.waitFor(/^after-restart$/m);

    // exit keeps the container; resume starts it again with the same files
    await type(session.id, "exit");
    const exited = await waitForState(session.id, "exited");
    expect(exited.reason).toMatch(/exit code 0/);
    expect(sessionContainers(session.id)).toHaveLength(1);
    await web.core.services.sessions.resume(session.id);
    const resumed = await web.watch(session.id);
    await type(session.id, "cat answer.txt; echo resumed-$((1+1))");
    await resumed.waitFor(/^resumed-2$/m);

    const finished = await web.core.services.sessions.finish(session.id);
    expect(finished.state).toBe("finished");
    expect(sessionContainers(session.id)).toEqual([]);
    // finishing again is harmless
    expect((await web.core.services.sessions.finish(session.id)).state).toBe("finished");
  }, 180_000);
});

describe("a Codex session", () => {
  it("answers in the TUI through the gateway, exits, resumes the same thread, and finishes", async () => {
    const sessions = web.core.services.sessions;
    const session = await sessions.start({
      projectId,
      kind: "codex",
      mode: "direct",
      model: "session-chat",
      startedBy: "Ada",
    });
    const terminal = await web.watch(session.id);
    // the composer is ready for input once its hint line is drawn
    await terminal.waitFor(/for shortcuts/, 60_000);
    await prompt({
      sessionId: session.id,
      terminal,
      text: "Please write the file.",
      reply: /I wrote from-codex\.txt for you\./,
    });
    expect(fs.readFileSync(path.join(projectDir, "from-codex.txt"), "utf8")).toBe("written in a session\n");

    await type(session.id, "/exit");
    const exited = await waitForState(session.id, "exited", 30_000);
    expect(exited.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(exited.tokens.input).toBeGreaterThan(0);

    await web.core.services.sessions.resume(session.id);
    const resumed = await web.watch(session.id);
    await resumed.waitFor(/I wrote from-codex\.txt for you\./, 60_000);
    await resumed.waitFor(/for shortcuts/, 60_000);
    await prompt({
      sessionId: session.id,
      terminal: resumed,
      text: "Do you remember?",
      reply: /Still the same conversation/,
    });
    await type(session.id, "/exit");
    const again = await waitForState(session.id, "exited", 30_000);
    expect(again.threadId).toBe(exited.threadId);

    await web.core.services.sessions.finish(session.id);
    expect(sessionContainers(session.id)).toEqual([]);
  }, 240_000);
});

describe("a network mode change while a session runs", () => {
  it("applies when the session resumes: its stopped container moves to the project's new network", async () => {
    const services = web.core.services;
    const interfaces = "echo ifaces-$(grep -c eth0 /proc/net/dev)";
    await services.projects.update({ id: projectId, settings: { networkMode: "none" } });
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    expect(session.network).toBe("none");
    const terminal = await web.watch(session.id);
    await type(session.id, interfaces);
    await terminal.waitFor(/^ifaces-0$/m);

    await services.projects.update({ id: projectId, settings: { networkMode: "internet" } });
    expect((await services.sessions.get(session.id)).network).toBe("none");
    await type(session.id, "exit");
    await waitForState(session.id, "exited");
    expect((await services.sessions.resume(session.id)).network).toBe("internet");
    const resumed = await web.watch(session.id);
    await type(session.id, interfaces);
    await resumed.waitFor(/^ifaces-1$/m);

    await services.sessions.finish(session.id);
    // the project's bridge went away with its last container
    const bridges = execFileSync(
      "docker",
      ["network", "ls", "-q", "--filter", `label=invariant.project=${projectId}`],
      {
        encoding: "utf8",
      },
    );
    expect(bridges.trim()).toBe("");
    await services.projects.update({ id: projectId, settings: { networkMode: "none" } });
  }, 120_000);
});

describe("saving a session's installed tools", () => {
  it("commits the container (not the project files) as the next environment version, made active", async () => {
    const services = web.core.services;
    await services.projects.update({ id: projectId, settings: { runAsRoot: true } });
    const before = (await services.environments.overview(projectId)).versions;
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    const terminal = await web.watch(session.id);
    await type(
      session.id,
      "printf '#!/bin/sh\\necho mytool-works\\n' > /usr/local/bin/mytool && chmod +x /usr/local/bin/mytool && mytool && touch in-workspace.txt",
    );
    await terminal.waitFor(/^mytool-works$/m);
    const version = await services.sessions.saveInstalledTools(session.id);
    expect(version).toMatchObject({ origin: "session", status: "ready", active: true, parentId: before[0]?.id });
    const active = (await services.environments.overview(projectId)).versions;
    expect(active.find((v) => v.active)?.id).toBe(version.id);
    // the new version's image has the tool; the private copy's file is not in it
    const image = version.imageId ?? version.imageTag;
    const out = execFileSync(
      "docker",
      ["run", "--rm", "--network", "none", image, "sh", "-c", "mytool; ls /workspace/in-workspace.txt 2>&1 || true"],
      { encoding: "utf8" },
    );
    expect(out).toMatch(/^mytool-works$/m);
    expect(out).toMatch(/No such file/);
    await services.sessions.finish(session.id);
    // later sessions start from it
    const next = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    const nextTerminal = await web.watch(next.id);
    await type(next.id, "mytool");
    await nextTerminal.waitFor(/^mytool-works$/m);
    await services.sessions.finish(next.id);
    // and a new study's trial runs in it: its agent finds the tool
    const worker = await startWorker({
      redisUrl: stack.redis.url,
      dataDir,
      concurrency: 1,
      version: "test",
      modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("sessions-codex"), upstreamBaseUrl: stack.mock.url },
      log: () => undefined,
    });
    try {
      const { id } = await services.studies.create(
        {
          projectId,
          title: "Tools",
          taskPrompt: "Use mytool.",
          testCommand: "node --test",
          concurrency: 1,
          configurations: [{ harness: "command", command: "mytool > tool.txt", repeats: 1 }],
        },
        "admin",
      );
      await expect.poll(async () => (await services.studies.get(id)).state, { timeout: 120_000 }).toBe("done");
      const [trial] = (await services.studies.get(id)).trials;
      expect(trial?.outcome).toBe("completed");
      const workspace = await readWorkspace({ dataDir, workspaceId: trial?.workspaceId ?? "" });
      expect((await workspaceFiles(workspace).readFile("tool.txt", 1024)).toString()).toBe("mytool-works\n");
    } finally {
      await worker.stop("test finished");
    }
    await services.projects.update({ id: projectId, settings: { runAsRoot: false } });
  }, 300_000);
});

describe("session containers nobody owns", () => {
  it("are removed when the web process starts; other installations' are left alone", async () => {
    const spec = (owner: string, session: string) => ({
      image: "invariant-base:bookworm",
      command: ["sleep", "300"],
      labels: { project: projectId, role: "session" as const, session, sessionOwner: owner },
      limits: { cpus: 0.5, memoryBytes: 64 * 1024 * 1024, swapBytes: 0, pids: 16 },
      network: "none" as const,
    });
    const ours = await runtime.createContainer(spec(sessionOwnerOf(dataDir), "ghost-ours"));
    const theirs = await runtime.createContainer(spec(sessionOwnerOf("/elsewhere"), "ghost-theirs"));
    try {
      web = await stack.restartWeb();
      await web.core.services.sessions.list({});
      const started = Date.now();
      while ((await runtime.containerStatus(ours)) !== null && Date.now() - started < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await runtime.containerStatus(ours)).toBeNull();
      expect(await runtime.containerStatus(theirs)).not.toBeNull();
    } finally {
      await runtime.removeContainer(ours);
      await runtime.removeContainer(theirs);
    }
  }, 60_000);
});
