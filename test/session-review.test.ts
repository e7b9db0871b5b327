import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarProject, createDockerRuntime } from "./support/study-harness";
import type { SessionWeb, TerminalWatcher } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";
import { pathKeyOf } from "../src/server/web/review/review-files";

/**
 * Issue 26 (points 9 and 13) on the real stack (Docker, the real Codex TUI against the mock model, SQLite,
 * Redis): a private-copy Codex session's thread and tokens are recorded, and browsers told, while it runs;
 * finished, its changes are the same review as a trial's (files, a file's sides, the patch) and its last
 * screen is kept as text. A direct session has no copy to review.
 */
const runtime = createDockerRuntime();
const SCRIPT = {
  description: "A terminal session writes a file and replies.",
  usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 20, reasoningTokens: 0 },
  steps: [
    { kind: "write-file", path: "from-codex.txt", content: "written in a session\n" },
    { kind: "reply", text: "I wrote from-codex.txt for you." },
  ],
};
let stack: SessionStack;
let web: SessionWeb;
let projectDir: string;

async function prompt(sessionId: string, terminal: TerminalWatcher, text: string, reply: RegExp) {
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

async function collect(chunks: AsyncIterable<string | Buffer> | Iterable<string | Buffer>): Promise<string> {
  let text = "";
  for await (const chunk of chunks) text += chunk.toString();
  return text;
}

beforeAll(async () => {
  projectDir = calendarProject();
  stack = await startSessionStack({ name: "session-review", runtime, projectDir, scripts: { "session-chat": SCRIPT } });
  ({ web } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe("a private-copy Codex session", () => {
  it("records its thread and tokens while it runs; finished, it is reviewed like a trial and keeps its last screen", async () => {
    const { sessions, review } = web.core.services;
    const session = await sessions.start({
      projectId: stack.projectId,
      kind: "codex",
      mode: "private",
      model: "session-chat",
    });
    expect(session.workspaceId).toEqual(expect.any(String));
    const terminal = await web.watch(session.id);
    await terminal.waitFor(/for shortcuts/, 60_000);
    await prompt(session.id, terminal, "Please write the file.", /I wrote from-codex\.txt for you\./);

    // the upkeep records them within seconds, and browsers hear of it, while Codex still runs
    const deadline = Date.now() + 20_000;
    let heard = web.changes.find((view) => view.id === session.id && view.threadId && view.tokens.input > 0);
    while (!heard && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      heard = web.changes.find((view) => view.id === session.id && view.threadId && view.tokens.input > 0);
    }
    expect(heard?.state).toBe("running");
    expect(heard?.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(heard?.tokens.input).toBeGreaterThanOrEqual(100);

    await web.type(session.id, "/exit");
    await web.waitForState(session.id, "exited", 30_000);
    await sessions.finish(session.id);

    const files = await review.files({ sessionId: session.id, opened: true });
    expect(files.items.map((item) => [item.path, item.status, item.insertions])).toEqual([
      ["from-codex.txt", "added", 1],
    ]);
    expect(files.opened?.after.text).toBe("written in a session\n");
    expect(files.opened?.before.exists).toBe(false);
    const file = await review.file({ sessionId: session.id, pathKey: pathKeyOf("from-codex.txt") });
    expect(file.after.text).toBe("written in a session\n");
    const after = await review.fileBytes({
      sessionId: session.id,
      pathKey: pathKeyOf("from-codex.txt"),
      side: "after",
    });
    expect(await collect(after.chunks)).toBe("written in a session\n");
    const patch = await review.sessionPatch({ sessionId: session.id });
    expect(patch.fileName).toBe(`session-${session.id}.patch`);
    const text = await collect(patch.chunks);
    expect(text).toContain("diff --git a/from-codex.txt b/from-codex.txt\nnew file mode 100644");
    expect(text).toContain("+written in a session");
    // the project itself is untouched until the session is applied
    expect(fs.existsSync(path.join(projectDir, "from-codex.txt"))).toBe(false);

    const screen = await sessions.lastScreen(session.id);
    const shown = screen?.lines.join("\n") ?? "";
    expect(shown).toContain("To continue this session, run:");
    expect(shown).not.toContain("?1;2c");
  }, 240_000);
});

describe("a direct session", () => {
  it("has no copy to review: the review says its changes are in the project already", async () => {
    const { sessions, review } = web.core.services;
    fs.chownSync(projectDir, 1000, 1000);
    const session = await sessions.start({ projectId: stack.projectId, kind: "shell", mode: "direct" });
    await web.waitForState(session.id, "running");
    await sessions.finish(session.id);
    await expect(review.files({ sessionId: session.id })).rejects.toThrow(/worked in the project directory itself/);
    await expect(review.files({ sessionId: "no-such-session" })).rejects.toThrow(/No session no-such-session/);
  }, 120_000);
});
