import { AppError } from "../errors/app-error";
import { ancestorsOf, bytesOf, displayPath, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { NotRegularFileError, readRegularFileSync, sha256Of } from "../../../lib/files/file-read";
import { hashFileOffThread } from "../../../lib/files/hash-thread";
import type { GitMode, Manifest, ManifestEntry } from "../snapshots/manifest";
import { openSnapshotContent, type SnapshotContent } from "../snapshots/snapshot-content";
import { walkTree, type SkippedEntry, type WalkEntry } from "../../../lib/files/tree-walker";
import { createYielder } from "../../../lib/files/yielder";
import { listOverlayChanges } from "./overlay-changes";
import { formatFilePatch } from "./unified-patch";
import type { DiffTotalsView, FileChangeOf, FileStateOf } from "../../../shared/snapshot-schemas";

/**
 * A workspace's changes against the snapshot it was made from. Tracked paths are compared by type,
 * mode and content; content by sha256 of what is on disk now — never by size and mtime, which a run
 * can set to anything (touch -d), so an edit that keeps both would go unseen. Hashing is cheap next
 * to the reads a diff needs anyway: every changed file's new hash goes into the apply plan.
 * New files are found with the same rules as a snapshot (.gitignore in the workspace, the
 * always-excluded list), so an agent's node_modules or a .env it wrote never shows up as a change; they
 * are listed (`leftOut`) and the evaluation leaves them out too: it runs exactly these changes.
 */
export interface FileState extends FileStateOf<BytePath> {
  mode: GitMode;
}

export interface FileChange extends FileChangeOf<FileState> {
  path: BytePath;
}

export type DiffTotals = DiffTotalsView;

export interface WorkspaceDiff {
  snapshotId: string;
  changes: FileChange[];
  totals: DiffTotals;
  /** Special files in the workspace, left out. */
  skipped: SkippedEntry[];
  /** New paths the ignore rules or the always-excluded list leave out (a directory once), in path order. */
  leftOut: BytePath[];
  /** Some patch was cut short or left out by the caps. */
  truncated: boolean;
}

export interface DiffCaps {
  /** Patch text per file. */
  maxPatchBytesPerFile: number;
  /** Patch text of the whole diff; later files get no patch. */
  maxTotalPatchBytes: number;
  /** Files above this size get no text diff. */
  maxTextBytes: number;
}

export const DEFAULT_DIFF_CAPS: DiffCaps = {
  maxPatchBytesPerFile: 256 * 1024,
  maxTotalPatchBytes: 8 * 1024 * 1024,
  maxTextBytes: 2 * 1024 * 1024,
};

/**
 * Files up to this size are read whole with synchronous calls (a few milliseconds each); bigger ones
 * are hashed on a worker thread (hash-thread.ts), so a huge file (an agent's 2 GiB sparse file, say)
 * never holds up the event loop of the web process or the worker.
 */
const READ_WHOLE_LIMIT = 4 * 1024 * 1024;

function stateOfEntry(entry: ManifestEntry): FileState {
  return {
    type: entry.type,
    mode: entry.mode,
    size: entry.size,
    sha256: entry.sha256,
    ...(entry.target !== undefined ? { target: entry.target } : {}),
  };
}

function stateOfWorkspaceEntry(root: string, entry: WalkEntry): FileState {
  if (entry.kind === "symlink")
    return {
      type: "symlink",
      mode: "120000",
      size: entry.size,
      sha256: sha256Of(bytesOf(entry.target)),
      target: entry.target,
    };
  try {
    const { data } = readRegularFileSync(toFsPath(root, entry.path));
    return { type: "file", mode: entry.executable ? "100755" : "100644", size: data.length, sha256: sha256Of(data) };
  } catch (error) {
    throw changedWhileReading(entry.path, error);
  }
}

/** A big file's state, hashed off the main thread (see READ_WHOLE_LIMIT). */
async function stateOfBigFile(root: string, entry: WalkEntry & { kind: "file" }): Promise<FileState> {
  try {
    const { sha256, size } = await hashFileOffThread(toFsPath(root, entry.path));
    return { type: "file", mode: entry.executable ? "100755" : "100644", size, sha256 };
  } catch (error) {
    throw changedWhileReading(entry.path, error);
  }
}

function changedWhileReading(path: BytePath, error: unknown): unknown {
  if (!(error instanceof NotRegularFileError)) return error;
  return new AppError({
    code: "CONFLICT",
    message: `${displayPath(path)} changed while the diff was being computed (${error.message}). Try again when the run has finished.`,
  });
}

function emptyTotals(): DiffTotals {
  return { files: 0, added: 0, modified: 0, deleted: 0, binary: 0, modeChanges: 0, insertions: 0, deletions: 0 };
}

/** Content for a patch: null when too big to diff as text, "changed" when it no longer matches its hash. */
function contentOf(options: {
  snapshot: SnapshotContent;
  entry: ManifestEntry | undefined;
  root: string;
  path: BytePath;
  state: FileState;
  maxTextBytes: number;
}): Buffer | null | "changed" {
  const { state } = options;
  if (state.type === "symlink") return bytesOf(state.target ?? "");
  if (state.size > options.maxTextBytes) return null;
  if (options.entry) return options.snapshot.read(options.entry);
  try {
    const { data } = readRegularFileSync(toFsPath(options.root, options.path));
    // the workspace changed since it was hashed: show no patch rather than a wrong one
    return sha256Of(data) === state.sha256 ? data : "changed";
  } catch (error) {
    if (error instanceof NotRegularFileError) return "changed";
    throw error;
  }
}

type Yielder = ReturnType<typeof createYielder>;

/** What the workspace holds (files and links, new paths past the ignore rules) and which snapshot paths it lost. */
async function listWorkspace(options: {
  manifest: Manifest;
  tracked: Map<BytePath, ManifestEntry>;
  root: string;
  overlayLower: string | null;
  yielder: Yielder;
}): Promise<{ entries: WalkEntry[]; gone: BytePath[]; skipped: SkippedEntry[]; leftOut: BytePath[] }> {
  const { manifest, tracked, root, yielder } = options;
  if (options.overlayLower) return listOverlayChanges({ upper: root, lower: options.overlayLower, manifest, yielder });
  const trackedDirs = new Set<BytePath>();
  for (const entry of manifest.entries) for (const dir of ancestorsOf(entry.path)) trackedDirs.add(dir);
  const walk = await walkTree({ root, tracked: { has: (p) => tracked.has(p), hasDir: (p) => trackedDirs.has(p) } });
  const seen = new Set(walk.entries.map((entry) => entry.path));
  const gone = manifest.entries.filter((entry) => !seen.has(entry.path)).map((entry) => entry.path);
  const leftOut = [...walk.ignored, ...walk.excluded.map((entry) => entry.path)].sort((a, b) => (a < b ? -1 : 1));
  return { entries: walk.entries, gone, skipped: walk.skipped, leftOut };
}

/**
 * Every path whose type, mode or content differs between the snapshot and the workspace, in path order.
 * A copy is walked whole; an overlay's upper layer is all there is to read (overlay-changes.ts).
 */
async function findChanges(options: {
  manifest: Manifest;
  tracked: Map<BytePath, ManifestEntry>;
  root: string;
  overlayLower: string | null;
  yielder: Yielder;
}): Promise<{ changes: FileChange[]; skipped: SkippedEntry[]; leftOut: BytePath[] }> {
  const { tracked, root, yielder } = options;
  const listing = await listWorkspace(options);
  const changes: FileChange[] = [];
  for (const entry of listing.entries) {
    if (yielder.due()) await yielder.pause();
    const old = tracked.get(entry.path);
    // an unchanged link is settled by its target; anything else by type, mode and content hash
    if (old?.type === "symlink" && entry.kind === "symlink" && entry.target === old.target) continue;
    const before = old ? stateOfEntry(old) : null;
    const after =
      entry.kind === "file" && entry.size > READ_WHOLE_LIMIT
        ? await stateOfBigFile(root, entry)
        : stateOfWorkspaceEntry(root, entry);
    if (before && before.type === after.type && before.mode === after.mode && before.sha256 === after.sha256) continue;
    changes.push(makeChange(entry.path, before, after));
  }
  for (const path of listing.gone) {
    const old = tracked.get(path);
    if (old) changes.push(makeChange(path, stateOfEntry(old), null));
  }
  changes.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { changes, skipped: listing.skipped, leftOut: listing.leftOut };
}

/** Fills in a change's patch and its line counts (or says the file changed while it was read). */
function attachPatch(options: {
  change: FileChange;
  snapshot: SnapshotContent;
  tracked: Map<BytePath, ManifestEntry>;
  root: string;
  caps: DiffCaps;
}): void {
  const { change, caps } = options;
  const read = (side: "before" | "after") => {
    const state = change[side];
    return state
      ? contentOf({
          snapshot: options.snapshot,
          entry: side === "before" ? options.tracked.get(change.path) : undefined,
          root: options.root,
          path: change.path,
          state,
          maxTextBytes: caps.maxTextBytes,
        })
      : null;
  };
  const before = read("before");
  const after = read("after");
  if (before === "changed" || after === "changed") {
    change.patch = "[diff unavailable: the file changed while the diff was being computed]\n";
    change.patchTruncated = true;
    return;
  }
  const patch = formatFilePatch({
    path: change.path,
    before: change.before ? { mode: change.before.mode, content: before } : null,
    after: change.after ? { mode: change.after.mode, content: after } : null,
    maxBytes: caps.maxPatchBytesPerFile,
    maxTextBytes: caps.maxTextBytes,
  });
  change.patch = patch.text;
  change.patchTruncated = patch.truncated;
  change.insertions = patch.insertions;
  change.deletions = patch.deletions;
  change.binary = patch.binary;
}

function addToTotals(totals: DiffTotals, change: FileChange): void {
  totals.files++;
  totals[change.status]++;
  if (change.binary) totals.binary++;
  if (change.modeChanged) totals.modeChanges++;
  totals.insertions += change.insertions;
  totals.deletions += change.deletions;
}

export async function diffWorkspace(options: {
  dataDir: string;
  manifest: Manifest;
  /** A copy's tree, or an overlay's upper layer (every changed file's bytes are there). */
  workspaceRoot: string;
  /** An overlay's lower layer (the snapshot's tree): `workspaceRoot` is then read as the layer above it. */
  overlayLower?: string | null;
  caps?: DiffCaps;
}): Promise<WorkspaceDiff> {
  const { manifest, workspaceRoot: root } = options;
  const caps = options.caps ?? DEFAULT_DIFF_CAPS;
  const yielder = createYielder();
  const tracked = new Map(manifest.entries.map((entry) => [entry.path, entry]));
  const overlayLower = options.overlayLower ?? null;
  const { changes, skipped, leftOut } = await findChanges({ manifest, tracked, root, overlayLower, yielder });

  // patches in path order, so the cap cuts the same files every time
  let patchBytes = 0;
  let truncated = false;
  const totals = emptyTotals();
  const snapshot = openSnapshotContent({ dataDir: options.dataDir, manifest });
  try {
    for (const change of changes) {
      if (yielder.due()) await yielder.pause();
      if (patchBytes >= caps.maxTotalPatchBytes) truncated = true;
      else {
        attachPatch({ change, snapshot, tracked, root, caps });
        patchBytes += change.patch?.length ?? 0;
      }
      truncated ||= change.patchTruncated;
      addToTotals(totals, change);
    }
  } finally {
    snapshot.close();
  }
  return { snapshotId: manifest.id, changes, totals, skipped, leftOut, truncated };
}

function makeChange(path: BytePath, before: FileState | null, after: FileState | null): FileChange {
  const typeChanged = Boolean(before && after && before.type !== after.type);
  return {
    path,
    status: !before ? "added" : !after ? "deleted" : "modified",
    before,
    after,
    contentChanged: !before || !after || before.sha256 !== after.sha256 || typeChanged,
    modeChanged: Boolean(before && after && before.mode !== after.mode && !typeChanged),
    typeChanged,
    binary: false,
    insertions: 0,
    deletions: 0,
    patch: null,
    patchTruncated: false,
  };
}
