import fs from "node:fs";
import path from "node:path";
import { isAgentSession, type AgentSessionKind } from "../../../shared/session-schemas";
import { sessionHomeOf } from "./codex-home";
import { latestThreadSince } from "./codex-threads";

/**
 * Where each agent CLI keeps its conversations in its home, and which one a session worked on: the
 * conversation written last since the session started (the user may switch conversations inside the
 * TUI, and a resume continues the one they left). Its id is what the CLI's `--resume` takes.
 *
 * - Codex: `sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl` (codex-threads.ts).
 * - Claude Code (CLAUDE_CONFIG_DIR): `projects/<cwd with / as ->/<session id>.jsonl`.
 * - Gemini CLI (GEMINI_CLI_HOME): `.gemini/tmp/<project>/chats/session-<time>-<id prefix>.jsonl`, whose
 *   first line holds `sessionId` (a resume writes a new file with the same id).
 */
const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/** Files two levels below `root` (`root/<folder>/<file>` or, with `middle`, `root/<folder>/<middle>/<file>`). */
function filesBelow(root: string, middle: string | null): string[] {
  let folders: string[];
  try {
    folders = fs.readdirSync(root);
  } catch {
    return [];
  }
  return folders.flatMap((folder) => {
    const dir = middle ? path.join(root, folder, middle) : path.join(root, folder);
    try {
      return fs.readdirSync(dir).map((name) => path.join(dir, name));
    } catch {
      return [];
    }
  });
}

function geminiSessionId(file: string): string | null {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, "r");
    const head = Buffer.alloc(4096);
    const length = fs.readSync(fd, head, 0, head.length, 0);
    const first = head.subarray(0, length).toString("utf8").split("\n")[0] ?? "";
    const line = JSON.parse(first) as { sessionId?: unknown; kind?: unknown };
    // subagents' conversations are kept beside the main one; only a main one can be resumed
    if (line.kind !== undefined && line.kind !== "main") return null;
    return typeof line.sessionId === "string" && /^[0-9a-f-]{36}$/.test(line.sessionId) ? line.sessionId : null;
  } catch {
    return null;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

function latest(candidates: { file: string; id: () => string | null }[], since: Date): string | null {
  let best: { id: string; mtime: number } | null = null;
  for (const candidate of candidates) {
    let mtime: number;
    try {
      mtime = fs.statSync(candidate.file).mtimeMs;
    } catch {
      continue;
    }
    if (mtime < since.getTime() - 1000 || (best && mtime <= best.mtime)) continue;
    const id = candidate.id();
    if (id) best = { id, mtime };
  }
  return best?.id ?? null;
}

/** The conversation of `kind` written last in `home` since `since`, or null when the CLI saved none. */
export function latestConversationSince(options: { kind: AgentSessionKind; home: string; since: Date }): string | null {
  const { kind, home, since } = options;
  if (kind === "codex") return latestThreadSince({ codexHome: home, since });
  if (kind === "claude-code")
    return latest(
      filesBelow(path.join(home, "projects"), null).map((file) => ({
        file,
        id: () => UUID.exec(path.basename(file))?.[1] ?? null,
      })),
      since,
    );
  return latest(
    filesBelow(path.join(home, ".gemini", "tmp"), "chats")
      .filter((file) => /^session-.*\.jsonl$/.test(path.basename(file)))
      .map((file) => ({ file, id: () => geminiSessionId(file) })),
    since,
  );
}

function copyTree(from: string, to: string): void {
  if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true, force: false, errorOnExist: false });
}

/**
 * A trial's conversations, copied into the session's agent home so the CLI's `--resume <id>` finds
 * them (the trial and the session both work in /workspace, so the CLIs file them under the same project).
 * Nothing in the session's home is overwritten.
 */
export function copyConversations(options: { kind: AgentSessionKind; from: string; to: string }): void {
  const { from, to } = options;
  if (options.kind === "codex") return copyTree(path.join(from, "sessions"), path.join(to, "sessions"));
  if (options.kind === "claude-code") return copyTree(path.join(from, "projects"), path.join(to, "projects"));
  for (const part of ["tmp", "history", "projects.json"])
    copyTree(path.join(from, ".gemini", part), path.join(to, ".gemini", part));
}

/** The conversation a session's agent works on now (its record's until the CLI saved one), or null for a shell. */
export function sessionConversation(
  dataDir: string,
  record: Parameters<typeof sessionHomeOf>[1] & { createdAt: string; threadId: string | null },
): string | null {
  if (!isAgentSession(record.kind)) return null;
  const home = sessionHomeOf(dataDir, record);
  return latestConversationSince({ kind: record.kind, home, since: new Date(record.createdAt) }) ?? record.threadId;
}
