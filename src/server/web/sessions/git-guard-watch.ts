import fs from "node:fs";
import path from "node:path";
import { readGitGuard } from "./git-guard";
import type { SessionDeps } from "./session-deps";
import { checkRunningGitGuard, gitGuardDir } from "./session-git-guard";
import type { SessionRecord } from "./sessions.queries";
import { messageOf } from "../../../shared/error-message";
import { RESUMABLE_SESSION_STATES } from "../../../shared/session-schemas";

/** Entries of `.git` whose change is checked at once. */
const WATCHED = new Set(["config", "config.worktree", "commondir", "hooks", "info", "modules", "worktrees"]);

/**
 * The git guard while direct sessions run. A change in a session's `.git` folder itself (a `commondir` or
 * config written there) or of the project's `.git` entry (a repository made where there was none, a
 * rewritten worktree pointer) is checked at once, as the kernel reports it (inotify), and everything else
 * at each upkeep tick. A session that changed what git runs is stopped (killed: nothing in it may race the
 * repair, and a loop that plants the same file again ends with its first attempt), then the change is
 * undone and the user told, so the user's git on the host meets it for at most the moment between the
 * write and its removal.
 */
export function createGitGuardWatch(options: {
  deps: Pick<SessionDeps, "dataDir" | "sessions" | "log" | "runtime">;
  changed: (record: SessionRecord | null) => unknown;
}) {
  const { deps } = options;
  const watchers = new Map<string, fs.FSWatcher[]>();
  const { check, trigger, reasons } = guardChecks(options);

  const onChange = (sessionId: string, names: Set<string>) => (_event: string, name: string | null) => {
    // what git runs, not the index and refs every git command rewrites
    if (!name || names.has(name)) trigger(sessionId);
  };
  const watch = (dir: string, listener: ReturnType<typeof onChange>): fs.FSWatcher | null => {
    try {
      const watcher = fs.watch(dir, { persistent: false }, listener);
      watcher.on("error", () => watcher.close());
      return watcher;
    } catch {
      return null; // not there (a project that is no repository has no .git folder): the upkeep tick still checks
    }
  };
  const open = (record: SessionRecord) => {
    const snapshot = readGitGuard(gitGuardDir(deps, record.id));
    if (!snapshot) return;
    const opened = [
      watch(snapshot.projectDir, onChange(record.id, new Set([".git"]))),
      watch(path.join(snapshot.projectDir, ".git"), onChange(record.id, WATCHED)),
    ].filter((watcher): watcher is fs.FSWatcher => watcher !== null);
    watchers.set(record.id, opened);
  };

  return {
    /** Checks one session now (serialised per session): undoes, tells, stops it when it runs. */
    check,
    /** Watches a direct session that now runs (at once: not only from the next upkeep tick). */
    watch(record: SessionRecord) {
      if (record.mode === "direct" && record.state === "running" && !watchers.has(record.id)) open(record);
    },
    /** Watches the running direct sessions among `records`, and no others. */
    sync(records: SessionRecord[]) {
      const live = new Set(records.filter((r) => r.mode === "direct" && r.state === "running").map((r) => r.id));
      for (const [id, opened] of watchers)
        if (!live.has(id)) {
          for (const watcher of opened) watcher.close();
          watchers.delete(id);
        }
      for (const record of records) if (live.has(record.id) && !watchers.has(record.id)) open(record);
    },
    /** Why the guard stopped the session (once), for its exit to record. */
    stoppedBecause(sessionId: string): string | undefined {
      const reason = reasons.get(sessionId);
      reasons.delete(sessionId);
      return reason;
    },
    close() {
      for (const watcher of [...watchers.values()].flat()) watcher.close();
      watchers.clear();
    },
  };
}

export type GitGuardWatch = ReturnType<typeof createGitGuardWatch>;

/** Checks of running sessions: the container is stopped (killed) before a repair, and why is kept for its exit. */
function guardChecks(options: {
  deps: Pick<SessionDeps, "dataDir" | "sessions" | "log" | "runtime">;
  changed: (record: SessionRecord | null) => unknown;
}) {
  const { deps } = options;
  const reasons = new Map<string, string>();
  const check = (sessionId: string) =>
    checkRunningGitGuard({
      deps,
      sessionId,
      stop: async (record, found) => {
        if (!record.containerId || RESUMABLE_SESSION_STATES.includes(record.state)) return;
        reasons.set(
          sessionId,
          `Stopped: it changed what git runs on your host (${found.join("; ")}), which was undone.`,
        );
        await deps.runtime.stopContainer(record.containerId, { timeoutSeconds: 0 });
      },
    }).then((record) => {
      if (record) options.changed(record);
      return record;
    });
  // events while a check runs (a loop writing the same file) make one more check after it, not one each
  const checking = new Set<string>();
  const again = new Set<string>();
  const trigger = (sessionId: string) => {
    if (checking.has(sessionId)) return void again.add(sessionId);
    checking.add(sessionId);
    check(sessionId)
      .catch((error: unknown) => deps.log(`session ${sessionId}: git guard: ${messageOf(error)}`))
      .finally(() => {
        checking.delete(sessionId);
        if (again.delete(sessionId)) trigger(sessionId);
      });
  };
  return { check, trigger, reasons };
}
