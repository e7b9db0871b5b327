import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { copyConversations, latestConversationSince } from "./agent-conversations";

/**
 * Which conversation a Claude Code or Gemini CLI session worked on, read from the files each CLI writes
 * in its home (the layouts of Claude Code 2.1.332 and Gemini CLI 0.61.0), and a trial's conversations
 * copied into a session's home without overwriting what is there.
 */
const ID_A = "22f32c3e-3488-47c8-ba18-fbad81434d0f";
const ID_B = "b507d07e-6e25-4a27-9a00-053c9e5935d1";

function write(file: string, content: string, mtime: Date): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  fs.utimesSync(file, mtime, mtime);
}

const geminiHead = (sessionId: string, kind = "main") =>
  `${JSON.stringify({ sessionId, projectHash: "5a1f", startTime: "2026-12-04T02:17:40.017Z", kind })}\n{"$set":{}}\n`;

describe("latestConversationSince", () => {
  const since = new Date("2026-12-04T02:00:00Z");
  const before = new Date("2026-12-04T01:00:00Z");
  const later = (minutes: number) => new Date(since.getTime() + minutes * 60_000);

  it("Claude Code: the session id of the projects/<cwd>/<id>.jsonl written last since the start", () => {
    const home = tempDir("claude-home");
    write(path.join(home, "projects", "-workspace", `${ID_A}.jsonl`), "{}\n", later(1));
    write(path.join(home, "projects", "-workspace", `${ID_B}.jsonl`), "{}\n", later(2));
    // not conversations: another file name, and one written before the session started
    write(path.join(home, "projects", "-workspace", "notes.jsonl"), "{}\n", later(3));
    write(path.join(home, "projects", "-other", "99999999-6e25-4a27-9a00-053c9e5935d1.jsonl"), "{}\n", before);
    expect(latestConversationSince({ kind: "claude-code", home, since })).toBe(ID_B);
    expect(latestConversationSince({ kind: "claude-code", home, since: later(5) })).toBeNull();
    expect(latestConversationSince({ kind: "claude-code", home: tempDir("claude-empty"), since })).toBeNull();
  });

  it("Gemini CLI: the sessionId on the first line of the chats/session-*.jsonl written last, subagents' left out", () => {
    const home = tempDir("gemini-home");
    const chats = path.join(home, ".gemini", "tmp", "workspace", "chats");
    write(path.join(chats, "session-2026-12-04T02-17-b507d07e.jsonl"), geminiHead(ID_B), later(1));
    write(path.join(chats, "session-2026-12-04T02-18-22f32c3e.jsonl"), geminiHead(ID_A, "subagent"), later(2));
    write(path.join(chats, "session-2026-12-04T02-19-broken.jsonl"), "not json\n", later(3));
    write(path.join(home, ".gemini", "tmp", "workspace", "logs.json"), "[]", later(4));
    expect(latestConversationSince({ kind: "gemini-cli", home, since })).toBe(ID_B);
    // a resume writes a new file with the same id: still that conversation
    write(path.join(chats, "session-2026-12-04T02-30-b507d07e.jsonl"), geminiHead(ID_B), later(5));
    expect(latestConversationSince({ kind: "gemini-cli", home, since })).toBe(ID_B);
  });
});

describe("copyConversations", () => {
  it("copies Claude Code's projects/ and Gemini CLI's tmp, history and projects.json, keeping the session's own files", () => {
    const trial = tempDir("trial-home");
    const session = tempDir("session-home");
    const now = new Date();
    write(path.join(trial, "projects", "-workspace", `${ID_A}.jsonl`), "trial\n", now);
    write(path.join(trial, ".claude.json"), "{}", now); // its settings stay the trial's
    write(path.join(session, "projects", "-workspace", `${ID_B}.jsonl`), "session\n", now);
    copyConversations({ kind: "claude-code", from: trial, to: session });
    expect(fs.readFileSync(path.join(session, "projects", "-workspace", `${ID_A}.jsonl`), "utf8")).toBe("trial\n");
    expect(fs.readFileSync(path.join(session, "projects", "-workspace", `${ID_B}.jsonl`), "utf8")).toBe("session\n");
    expect(fs.existsSync(path.join(session, ".claude.json"))).toBe(false);

    const geminiTrial = tempDir("gemini-trial");
    const geminiSession = tempDir("gemini-session");
    const chat = path.join(".gemini", "tmp", "workspace", "chats", "session-1-b507d07e.jsonl");
    write(path.join(geminiTrial, chat), geminiHead(ID_B), now);
    write(path.join(geminiTrial, ".gemini", "projects.json"), '{"projects":{"/workspace":"workspace"}}', now);
    write(path.join(geminiTrial, ".gemini", "settings.json"), "{}", now);
    write(path.join(geminiSession, ".gemini", "projects.json"), '{"projects":{}}', now);
    copyConversations({ kind: "gemini-cli", from: geminiTrial, to: geminiSession });
    expect(fs.readFileSync(path.join(geminiSession, chat), "utf8")).toBe(geminiHead(ID_B));
    expect(fs.readFileSync(path.join(geminiSession, ".gemini", "projects.json"), "utf8")).toBe('{"projects":{}}');
    expect(fs.existsSync(path.join(geminiSession, ".gemini", "settings.json"))).toBe(false);
    // a trial with no conversation copies nothing
    copyConversations({ kind: "gemini-cli", from: tempDir("gemini-none"), to: geminiSession });
  });
});
