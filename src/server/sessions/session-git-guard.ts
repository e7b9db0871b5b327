import path from "node:path";
import type { Mount } from "../runtime/container-spec";
import { dataDirPaths } from "../storage/data-dir";
import { enforceGitGuard, readGitGuard, snapshotGitGuard } from "./git-guard";
import { gitGuardMounts } from "./git-guard-paths";
import type { SessionDeps } from "./session-deps";
import type { SessionRecord } from "./sessions.queries";

const MAX_NOTICE = 4000;

/** Where a session keeps its git guard's snapshot (its own folder, never mounted into its container). */
export const gitGuardDir = (deps: Pick<SessionDeps, "dataDir">, sessionId: string) =>
  path.join(dataDirPaths(deps.dataDir).session(sessionId).dir, "git-guard");

/**
 * A direct session's start: its container's mounts over the project's `.git` (read-only where git keeps
 * what it runs) and the guard's snapshot of those files. Nothing for a project that is no git repository.
 */
export function guardDirectSession(options: {
  deps: Pick<SessionDeps, "dataDir">;
  sessionId: string;
  projectDir: string;
}): Mount[] {
  snapshotGitGuard({ projectDir: options.projectDir, saveDir: gitGuardDir(options.deps, options.sessionId) });
  return gitGuardMounts(options.projectDir);
}

/** A resume: what changed while the session's container was stopped was the user's own, so the snapshot is taken again. */
export function resnapshotGitGuard(deps: Pick<SessionDeps, "dataDir">, record: SessionRecord): void {
  const saveDir = gitGuardDir(deps, record.id);
  const before = record.mode === "direct" ? readGitGuard(saveDir) : null;
  if (before) snapshotGitGuard({ projectDir: before.projectDir, saveDir });
}

/**
 * Undoes what a direct session changed in what git runs on the host (while it runs, when it ends, when the
 * dashboard starts again) and tells the user: the session's notice (its page) and the log. Returns the
 * record as it is now.
 */
export async function checkGitGuard(options: {
  deps: Pick<SessionDeps, "dataDir" | "sessions" | "log">;
  record: SessionRecord;
  /** Said after what was undone (the session was stopped for it). */
  then?: string;
}): Promise<{ record: SessionRecord; undone: string[] }> {
  const { deps, record } = options;
  const snapshot = record.mode === "direct" ? readGitGuard(gitGuardDir(deps, record.id)) : null;
  if (!snapshot) return { record, undone: [] };
  const saveDir = gitGuardDir(deps, record.id);
  let undone: string[];
  try {
    undone = enforceGitGuard({ snapshot, saveDir });
  } catch (error) {
    undone = [
      `could not check (${error instanceof Error ? error.message : String(error)}); look at .git/config and .git/hooks yourself before running git there`,
    ];
  }
  if (undone.length === 0) return { record, undone };
  const what = `The dashboard undid what this session changed in what git runs on your host (${undone.join("; ")}).${options.then ? ` ${options.then}` : ""} A session may not change git's configuration or hooks: they would run programs on your host, with your rights, at your next git command. Set them on the host yourself if you want them.`;
  deps.log(`session ${record.id}: git guard: ${undone.join("; ")}`);
  const notice = (record.notice ? `${record.notice}\n${what}` : what).slice(-MAX_NOTICE);
  return { record: await deps.sessions.update(record.id, { notice }), undone };
}
