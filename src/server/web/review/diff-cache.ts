import fs from "node:fs/promises";
import type { BytePath } from "../../../lib/files/byte-path";
import { diffWorkspace, type DiffCaps, type FileChange, type WorkspaceDiff } from "../../core/diffs/workspace-diff";
import { readManifest, type Manifest, type ManifestEntry } from "../../core/snapshots/manifest";
import { readWorkspace } from "../../core/workspaces/workspace-store";
import { REVIEW_TEXT_MAX_BYTES } from "../../../shared/review-schemas";

/**
 * A trial's workspace diff, computed once and kept: paging the file list, opening the next file and
 * comparing trials all read the same result. An entry is keyed by workspace and a cheap stamp the
 * caller makes (the trial's attempt, state and end time, and the tree root's mtime); a live trial's
 * entry also expires after `liveTtlMs`, since its agent may still be writing. Concurrent callers of
 * the same entry share one computation.
 */
export interface ReviewDiff {
  workspaceId: string;
  snapshotId: string;
  /** The workspace's own files: a copy's tree, an overlay's upper layer (where every changed file is). */
  root: string;
  /** An overlay's lower layer, the snapshot's tree: where its unchanged files are; null for a copy. */
  lower: string | null;
  manifest: Manifest;
  tracked: Map<BytePath, ManifestEntry>;
  /** In path order; `patch` is dropped (the review reads sides itself), counts stay. */
  changes: FileChange[];
  byPath: Map<BytePath, FileChange>;
  skipped: WorkspaceDiff["skipped"];
  /** New paths the diff leaves out (ignored, always excluded), the root .git aside: the evaluation leaves them out too. */
  leftOut: WorkspaceDiff["leftOut"];
}

/** Line counts for every file up to the review's text limit; the patch text itself is not kept. */
const REVIEW_CAPS: DiffCaps = {
  maxPatchBytesPerFile: 1024,
  maxTotalPatchBytes: Number.MAX_SAFE_INTEGER,
  maxTextBytes: REVIEW_TEXT_MAX_BYTES,
};

interface Entry {
  stamp: string;
  expiresAt: number;
  diff: Promise<ReviewDiff>;
}

export function createDiffCache(options: {
  dataDir: string;
  maxEntries?: number;
  liveTtlMs?: number;
  clock?: () => number;
}) {
  const maxEntries = options.maxEntries ?? 16;
  const liveTtlMs = options.liveTtlMs ?? 2000;
  const clock = options.clock ?? (() => performance.now());
  const entries = new Map<string, Entry>();
  const manifests = new Map<string, Promise<Manifest>>();

  function manifest(snapshotId: string): Promise<Manifest> {
    let found = manifests.get(snapshotId);
    if (!found) {
      found = readManifest({ dataDir: options.dataDir, snapshotId });
      found.catch(() => manifests.delete(snapshotId));
      manifests.set(snapshotId, found);
      // manifests are immutable: a few recent ones are enough
      if (manifests.size > 4) manifests.delete(manifests.keys().next().value ?? "");
    }
    return found;
  }

  async function compute(workspaceId: string): Promise<ReviewDiff> {
    const workspace = await readWorkspace({ dataDir: options.dataDir, workspaceId });
    const snapshot = await manifest(workspace.snapshotId);
    const diff = await diffWorkspace({
      dataDir: options.dataDir,
      manifest: snapshot,
      workspaceRoot: workspace.path,
      overlayLower: workspace.overlay?.lower ?? null,
      caps: REVIEW_CAPS,
    });
    for (const change of diff.changes) change.patch = null;
    return {
      workspaceId,
      snapshotId: snapshot.id,
      root: workspace.path,
      lower: workspace.overlay?.lower ?? null,
      manifest: snapshot,
      tracked: new Map(snapshot.entries.map((entry) => [entry.path, entry])),
      changes: diff.changes,
      byPath: new Map(diff.changes.map((change) => [change.path, change])),
      skipped: diff.skipped,
      leftOut: diff.leftOut.filter((path) => path !== ".git"),
    };
  }

  return {
    manifest,

    /** The tree root's mtime and ctime: part of the stamp, so files added or removed at the top are seen. */
    async rootStamp(workspaceId: string): Promise<string> {
      const workspace = await readWorkspace({ dataDir: options.dataDir, workspaceId });
      const stat = await fs.stat(workspace.path).catch(() => null);
      return stat ? `${stat.mtimeMs}:${stat.ctimeMs}` : "gone";
    },

    get(input: { workspaceId: string; stamp: string; live: boolean }): Promise<ReviewDiff> {
      const now = clock();
      const found = entries.get(input.workspaceId);
      if (found && found.stamp === input.stamp && found.expiresAt > now) {
        // most recently used last
        entries.delete(input.workspaceId);
        entries.set(input.workspaceId, found);
        return found.diff;
      }
      const diff = compute(input.workspaceId);
      const entry: Entry = { stamp: input.stamp, expiresAt: input.live ? now + liveTtlMs : Infinity, diff };
      diff.catch(() => {
        if (entries.get(input.workspaceId) === entry) entries.delete(input.workspaceId);
      });
      entries.delete(input.workspaceId);
      entries.set(input.workspaceId, entry);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value ?? "");
      return diff;
    },
  };
}

export type DiffCache = ReturnType<typeof createDiffCache>;

/** Where a path's current bytes are: the workspace's own files for a change, an overlay's lower layer otherwise. */
export function sideRoot(diff: Pick<ReviewDiff, "root" | "lower" | "byPath">, path: BytePath): string {
  return diff.lower && !diff.byPath.has(path) ? diff.lower : diff.root;
}
