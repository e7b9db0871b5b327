import path from "node:path";
import type { Mount } from "../../core/runtime/container-spec";
import { dataDirPaths } from "../../core/storage/data-dir";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import { enforceGitGuard, gitGuardDifferences, readGitGuard, snapshotGitGuard } from "./git-guard";
import { gitGuardMounts } from "./git-guard-paths";
import type { SessionDeps } from "./session-deps";
import type { SessionRecord } from "./sessions.queries";
import { messageOf } from "../../../shared/error-message";

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

/** One guard at a time per session: the watch, an exit and a finish may all look at once. */
const guardLock = createKeyedLock();

const STOPPED = "The session was stopped for it (so it cannot plant it again); resume it to go on, or finish it.";

/**
 * Undoes what a direct session changed in what git runs on the host (when it ends, when the dashboard
 * starts again; while it runs, see checkRunningGitGuard) and tells the user: the session's notice (its
 * page) and the log. Only for a session whose container is not running. Returns the record as it is now.
 */
export function checkGitGuard(options: {
  deps: Pick<SessionDeps, "dataDir" | "sessions" | "log">;
  record: SessionRecord;
}): Promise<{ record: SessionRecord; undone: string[] }> {
  return guardLock(options.record.id, () => undo({ ...options, stopped: false }));
}

/**
 * While the session's container may run: what it changed is looked at without writing anything; if there
 * is something, the container is stopped first, at once (`stop`), so nothing in it can race the repairs
 * (swap a folder on their way for a symlink), then it is undone. Returns the record, or null when nothing
 * changed.
 */
export function checkRunningGitGuard(options: {
  deps: Pick<SessionDeps, "dataDir" | "sessions" | "log">;
  sessionId: string;
  stop: (record: SessionRecord, found: string[]) => Promise<void>;
}): Promise<SessionRecord | null> {
  const { deps, sessionId } = options;
  return guardLock(sessionId, async () => {
    const record = await deps.sessions.find(sessionId);
    const saveDir = gitGuardDir(deps, sessionId);
    const snapshot = record?.mode === "direct" ? readGitGuard(saveDir) : null;
    if (!record || !snapshot) return null;
    const found = gitGuardDifferences({ snapshot, saveDir });
    if (found.length === 0) return null;
    await options.stop(record, found);
    return (await undo({ deps, record, stopped: true })).record;
  });
}

async function undo(options: {
  deps: Pick<SessionDeps, "dataDir" | "sessions" | "log">;
  record: SessionRecord;
  stopped: boolean;
}): Promise<{ record: SessionRecord; undone: string[] }> {
  const { deps } = options;
  const record = (await deps.sessions.find(options.record.id)) ?? options.record;
  const snapshot = record.mode === "direct" ? readGitGuard(gitGuardDir(deps, record.id)) : null;
  if (!snapshot) return { record, undone: [] };
  const saveDir = gitGuardDir(deps, record.id);
  let undone: string[];
  try {
    undone = enforceGitGuard({ snapshot, saveDir });
  } catch (error) {
    undone = [
      `could not check (${messageOf(error)}); look at .git/config and .git/hooks yourself before running git there`,
    ];
  }
  if (undone.length === 0) return { record, undone };
  const what = `The dashboard undid what this session changed in what git runs on your host (${undone.join("; ")}).${options.stopped ? ` ${STOPPED}` : ""} A session may not change git's configuration or hooks: they would run programs on your host, with your rights, at your next git command. Set them on the host yourself if you want them.`;
  deps.log(`session ${record.id}: git guard: ${undone.join("; ")}`);
  const notice = (record.notice ? `${record.notice}\n${what}` : what).slice(-MAX_NOTICE);
  return { record: await deps.sessions.update(record.id, { notice }), undone };
}
