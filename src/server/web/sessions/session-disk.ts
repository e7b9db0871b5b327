import { folderBytes, type DiskOverrun } from "../../core/runtime/disk-budget";
import { formatBytes } from "../../../lib/format-bytes";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { SessionDeps } from "./session-deps";
import type { SessionRecord } from "./sessions.queries";

/** The reason a session stopped by its disk budget shows. */
export function sessionDiskReason(overrun: DiskOverrun): string {
  return `Stopped: it wrote ${formatBytes(overrun.usedBytes)} to disk, past the disk budget of ${formatBytes(overrun.budgetBytes)} (the project's "Disk budget per trial" setting, which sessions get too). Resume to delete files (it is stopped again while still over), save what it installed, or finish it.`;
}

/**
 * A session's disk budget, as a trial's: what it wrote to its container's layer, to its dependency
 * overlays and (a private copy) the growth of its workspace since this web process first measured it.
 * A direct session's writes to the project directory are the user's files and are not counted.
 */
export function createSessionDiskCheck(deps: Pick<SessionDeps, "runtime" | "dataDir">) {
  const baselines = new Map<string, number>();
  const reasons = new Map<string, string>();
  return {
    async overrun(record: SessionRecord, budgetBytes: number): Promise<DiskOverrun | null> {
      if (!record.containerId) return null;
      const paths = dataDirPaths(deps.dataDir);
      const folders = [paths.session(record.id).dependencyScratch];
      // a private copy's own files: a copy's tree, or a copy-on-write workspace's upper layer (the other is absent)
      if (record.mode === "private" && record.workspaceId) {
        const own = paths.workspace(record.workspaceId);
        folders.push(own.tree, own.upper);
      }
      const now = await folderBytes(folders);
      const baseline = baselines.get(record.id) ?? now;
      baselines.set(record.id, baseline);
      const usedBytes = (await deps.runtime.writtenBytes(record.containerId)) + now - baseline;
      return usedBytes > budgetBytes ? { usedBytes, budgetBytes } : null;
    },
    /** Records that the session is being stopped for this overrun; returns the reason it will show. */
    stopping(sessionId: string, overrun: DiskOverrun): string {
      const reason = sessionDiskReason(overrun);
      reasons.set(sessionId, reason);
      return reason;
    },
    /** At its exit: why the dashboard stopped it, if it did. */
    stoppedBecause(sessionId: string): string | undefined {
      const reason = reasons.get(sessionId);
      reasons.delete(sessionId);
      return reason;
    },
  };
}

export type SessionDiskCheck = ReturnType<typeof createSessionDiskCheck>;
