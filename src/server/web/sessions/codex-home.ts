import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { SessionKind } from "../../../shared/session-schemas";

const run = promisify(execFile);

/** Which of a project's Codex homes a session uses: one per mode, so nothing one mode writes is read by another. */
export type CodexHomeKind = "direct" | "private" | "continue";

/**
 * A direct session's home, a private copy's, or a continued trial's: a prompt injection that makes a
 * private copy's agent write AGENTS.md, config.toml, skills or prompts there reaches only later sessions
 * of the same mode, never a direct one (which edits the project itself).
 */
export function codexHomeKindOf(session: { mode: "direct" | "private"; fromTrialId: string | null }): CodexHomeKind {
  if (session.mode === "direct") return "direct";
  return session.fromTrialId ? "continue" : "private";
}

/**
 * A project's session Codex home (of one mode) is shared by its sessions, which may run as different users (a direct
 * session as the project directory's owner, a private copy as the host user). A dashboard running as
 * root takes the folder back before a session's container is created, so the runtime hands it to that
 * session's user (it re-owns only folders that are the dashboard's or already that user's). Without
 * this, a direct Codex session after a private one could not read its own configuration.
 */
export async function reclaimCodexHome(options: { path: string; dashboardUid: number | undefined }): Promise<void> {
  if (options.dashboardUid !== 0) return;
  await run("find", [options.path, "-xdev", "!", "-uid", "0", "-exec", "chown", "-h", "0:0", "{}", "+"], {
    maxBuffer: 1024 * 1024,
  });
}

/**
 * The host folder a session's agent keeps its home in: the project's Codex home of the session's mode
 * (a shell's too, for a `codex` typed there), or Claude Code's or Gemini CLI's of that mode.
 */
export function sessionHomeOf(
  dataDir: string,
  record: { projectId: string; kind: SessionKind; mode: "direct" | "private"; fromTrialId: string | null },
): string {
  const paths = dataDirPaths(dataDir);
  const home = codexHomeKindOf(record);
  return record.kind === "claude-code" || record.kind === "gemini-cli"
    ? paths.sessionAgentHome(record.projectId, home, record.kind)
    : paths.sessionCodexHome(record.projectId, home);
}
