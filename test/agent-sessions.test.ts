import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarProject, createDockerRuntime, FAKE_KEY, tempDir } from "./support/study-harness";
import type { SessionWeb, TerminalWatcher } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { readWorkspace } from "../src/server/core/workspaces/workspace-store";
import { workspaceFiles } from "../src/server/core/workspaces/workspace-files";
import { startWorker } from "../worker/main";

/**
 * Issue 27 on the real stack: Claude Code and Gemini CLI sessions as complete as Codex's — the real
 * binaries (Claude Code's native build, Gemini CLI's bundle on its own Node.js, both mounted read-only
 * from the package) in real containers, against the bundled scripted model (`scripted:session-chat`:
 * write a file and reply; a second turn of the same conversation replies that it remembers). The mock
 * derives its step from the conversation each request carries, so that second reply shows the request
 * held the earlier turns. Started, typed into and resumed through the session service as the browser's
 * socket drives it; then a Claude Code trial continued in a session that resumes its conversation.
 * Prompts end in "." rather than "?": Gemini CLI drops a "?" that ends a burst of input (a test types a
 * prompt at once; a person's keystrokes come one by one).
 */
const runtime = createDockerRuntime();
const MODEL = "scripted:session-chat";
const FIRST_REPLY = /I wrote from-codex\.txt for you\./;
const SECOND_REPLY = /Still the same conversation: I remember from-codex\.txt\./;
/** What each TUI draws once it takes input, and how it is left. */
const TUI: Record<"claude-code" | "gemini-cli", { ready: RegExp; exit: string }> = {
  "claude-code": { ready: /bypass permissions on/, exit: "/exit" },
  "gemini-cli": { ready: /Type your message/, exit: "/quit" },
};
let stack: SessionStack;
let web: SessionWeb;
let dataDir: string;
let projectId: string;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Types a prompt and submits it, then waits for `reply`. A TUI takes a burst of characters with an Enter
 * in it for a paste: so Enter goes once the prompt shows the text, and again while no reply came (an
 * Enter in an empty prompt does nothing).
 */
async function prompt(options: { sessionId: string; terminal: TerminalWatcher; text: string; reply: RegExp }) {
  const { sessionId, terminal, text, reply } = options;
  web.core.services.sessions.input(sessionId, text);
  await terminal.waitFor(new RegExp(escape(text)), 30_000);
  for (let attempt = 1; ; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    web.core.services.sessions.input(sessionId, "\r");
    try {
      return await terminal.waitFor(reply, attempt < 3 ? 20_000 : 60_000);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

/** Leaves the TUI by its own command; the session exits with its conversation recorded. */
async function exitTui(kind: keyof typeof TUI, sessionId: string) {
  await web.type(sessionId, TUI[kind].exit);
  return web.waitForState(sessionId, "exited", 60_000);
}

beforeAll(async () => {
  const projectDir = calendarProject();
  stack = await startSessionStack({ name: "agent-sessions", runtime, projectDir });
  ({ web, dataDir, projectId } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe.each(["claude-code", "gemini-cli"] as const)("a %s session", (kind) => {
  it("answers a typed task in its TUI, is reattached after a restart, exits, and resumes the same conversation by the CLI's session id", async () => {
    const sessions = web.core.services.sessions;
    const session = await sessions.start({ projectId, kind, mode: "private", model: MODEL, startedBy: "Ada" });
    expect(session).toMatchObject({ kind, model: MODEL });
    const terminal = await web.watch(session.id);
    // no onboarding, folder trust or API-key question first: the TUI is ready for the task
    await terminal.waitFor(TUI[kind].ready, 90_000);
    await prompt({ sessionId: session.id, terminal, text: "Please write the file.", reply: FIRST_REPLY });
    const workspace = await readWorkspace({ dataDir, workspaceId: session.workspaceId ?? "" });
    expect((await workspaceFiles(workspace).readFile("from-codex.txt", 1024)).toString()).toBe(
      "written in a session\n",
    );

    // its browser goes away and the dashboard restarts: the TUI runs on, and a new watcher gets its screen back
    terminal.stop();
    web = await stack.restartWeb();
    await web.waitForState(session.id, "running", 30_000);
    const back = await web.watch(session.id);
    await back.waitFor(FIRST_REPLY, 30_000);
    await back.waitFor(TUI[kind].ready, 30_000);

    const exited = await exitTui(kind, session.id);
    expect(exited.threadId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(exited.reason).toMatch(/ended \(exit code \d+\)\. Resume starts it again .*continuing the conversation/);
    expect(exited.tokens.input).toBeGreaterThan(0);
    // the conversation lives in the project's agent home, which outlives the container
    const home = dataDirPaths(dataDir).sessionAgentHome(projectId, "private", kind);
    expect(execFileSync("grep", ["-rl", exited.threadId ?? "-", home], { encoding: "utf8" })).not.toBe("");

    // the web core restarted: its own session service from here on
    await web.core.services.sessions.resume(session.id);
    const resumed = await web.watch(session.id);
    // the resumed TUI shows the conversation so far, and the next turn continues it
    await resumed.waitFor(FIRST_REPLY, 90_000);
    await resumed.waitFor(TUI[kind].ready, 60_000);
    await prompt({ sessionId: session.id, terminal: resumed, text: "Do you remember.", reply: SECOND_REPLY });
    const again = await exitTui(kind, session.id);
    expect(again.threadId).toBe(exited.threadId);
    await web.core.services.sessions.finish(session.id);
  }, 300_000);
});

describe.each(["claude-code", "gemini-cli"] as const)("a %s session as the host user", (kind) => {
  it("starts unattended and answers when the project does not run as root", async () => {
    const services = web.core.services;
    await services.projects.update({ id: projectId, settings: { runAsRoot: false } });
    try {
      // the home was written by sessions running as root: the next session's user gets it (and its settings)
      const session = await services.sessions.start({ projectId, kind, mode: "private", model: MODEL });
      const terminal = await web.watch(session.id);
      await terminal.waitFor(TUI[kind].ready, 90_000);
      await prompt({ sessionId: session.id, terminal, text: "Please write the file.", reply: FIRST_REPLY });
      const exited = await exitTui(kind, session.id);
      expect(exited.threadId).toMatch(/^[0-9a-f-]{36}$/);
      await services.sessions.finish(session.id);
    } finally {
      await services.projects.update({ id: projectId, settings: { runAsRoot: true } });
    }
  }, 300_000);
});

const LABEL = { "claude-code": "Claude Code", "gemini-cli": "Gemini CLI" } as const;

describe.each(["claude-code", "gemini-cli"] as const)("continuing a %s trial's result", (kind) => {
  it("resumes the trial's conversation in a session of its agent on its private copy", async () => {
    const services = web.core.services;
    const worker = await startWorker({
      redisUrl: stack.redis.url,
      dataDir,
      concurrency: 1,
      version: "test",
      modelGateway: {
        openaiApiKey: FAKE_KEY,
        codexHome: tempDir("agent-sessions-codex"),
        upstreamBaseUrl: stack.mock.url,
      },
      log: () => undefined,
    });
    let trialId: string;
    let trialThread: string | null;
    try {
      const { id } = await services.studies.create(
        {
          projectId,
          title: `${LABEL[kind]}, continued`,
          taskPrompt: "Please write the file.",
          testCommand: "node --test",
          concurrency: 1,
          configurations: [{ harness: kind, model: MODEL, repeats: 1 }],
        },
        "admin",
      );
      await expect.poll(async () => (await services.studies.get(id)).state, { timeout: 180_000 }).toBe("done");
      const [trial] = (await services.studies.get(id)).trials;
      expect(trial?.threadId).toMatch(/^[0-9a-f-]{36}$/);
      expect(trial?.committedImageId).toBeTruthy();
      trialId = trial?.id ?? "";
      trialThread = trial?.threadId ?? null;
    } finally {
      await worker.stop("test finished");
    }
    // a Codex session cannot resume another agent's conversation: refused with what to do instead
    await expect(
      services.sessions.start({ projectId, kind: "codex", model: "gpt-5", fromTrialId: trialId }),
    ).rejects.toThrow(`ran ${LABEL[kind]}, so only a ${LABEL[kind]} session can resume its conversation`);
    const session = await services.sessions.start({ projectId, kind, fromTrialId: trialId, resumeTrialThread: true });
    // the trial's model and conversation: the session resumes it by the CLI's session id
    expect(session).toMatchObject({ kind, model: MODEL, mode: "private" });
    const terminal = await web.watch(session.id);
    await terminal.waitFor(/Please write the file\./, 90_000);
    await terminal.waitFor(FIRST_REPLY, 30_000);
    await terminal.waitFor(TUI[kind].ready, 60_000);
    await prompt({ sessionId: session.id, terminal, text: "Do you remember.", reply: SECOND_REPLY });
    const exited = await exitTui(kind, session.id);
    expect(exited.threadId).toBe(trialThread);
    // the trial's conversation was copied into the agent's home for continued trials
    const home = dataDirPaths(dataDir).sessionAgentHome(projectId, "continue", kind);
    expect(execFileSync("grep", ["-rl", trialThread ?? "-", home], { encoding: "utf8" })).not.toBe("");
    await services.sessions.finish(session.id);
  }, 420_000);
});
