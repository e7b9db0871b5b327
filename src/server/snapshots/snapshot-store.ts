import fs from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { bytesOf, displayPath, toFsPath, type BytePath } from "./byte-path";
import type { ExclusionCategory } from "./exclusion-rules";
import { NotRegularFileError, openRegularFile, sha256Of } from "./file-read";
import { createPackWriter, gitObjectId } from "./git-pack";
import { commitObject, runSystemGit, writeIndex, writeRepositoryFiles, writeTrees, type GitRunner } from "./git-repo";
import { MANIFEST_FILE, MANIFEST_FORMAT, readManifest, serializeManifest, snapshotDir, snapshotIdOf, snapshotsDir, type Manifest, type ManifestEntry } from "./manifest";
import { runLimited } from "./run-limited";
import { checkSnapshotLimits, DEFAULT_SNAPSHOT_LIMITS, type SnapshotLimits } from "./snapshot-limits";
import { walkTree, type WalkEntry, type WalkResult } from "./tree-walker";

/**
 * Freezes a project directory into <dataDir>/snapshots/<id>/:
 *   manifest.json   every file and symlink: path, type, git mode, size, sha256, git blob id, link target
 *   blobs/<sha256>  each distinct file content once (workspaces copy from here)
 *   git/            a repository whose single commit is the snapshot (HEAD, config, refs, one pack, index)
 * The whole directory is built under snapshots/.tmp-*, then renamed into place, so a refused or
 * failed snapshot leaves nothing behind, and an existing snapshot with the same id is reused.
 */
export interface CreateSnapshotOptions {
  projectRoot: string;
  projectId: string;
  dataDir: string;
  limits?: SnapshotLimits;
  git?: GitRunner;
  /** Files read at once. */
  concurrency?: number;
}

export interface SnapshotResult {
  manifest: Manifest;
  /** An identical snapshot of this project already existed and was reused. */
  reused: boolean;
  dir: string;
}

/** Reads a walked file again, refusing what changed in between (never following a link swapped in). */
async function readWalkedFile(root: string, rel: BytePath, maxBytes: number): Promise<{ data: Buffer; executable: boolean }> {
  let opened;
  try {
    opened = await openRegularFile(toFsPath(root, rel));
  } catch (error) {
    if (!(error instanceof NotRegularFileError)) throw error;
    const what = { missing: "was deleted", symlink: "was replaced by a symlink", "not-a-file": "stopped being a regular file" }[error.reason];
    throw new AppError({ code: "CONFLICT", message: `${displayPath(rel)} ${what} while the snapshot was being taken. Nothing was saved; try again when the project is quiet.` });
  }
  const { handle, size, executable } = opened;
  try {
    if (size > maxBytes) checkSnapshotLimits([{ kind: "file", path: rel, size, executable }], { ...DEFAULT_SNAPSHOT_LIMITS, maxFileBytes: maxBytes });
    return { data: await handle.readFile(), executable };
  } finally {
    await handle.close();
  }
}

function summarizeExclusions(walk: WalkResult): Manifest["excluded"] {
  const counts: Partial<Record<ExclusionCategory, number>> = {};
  for (const item of walk.excluded) counts[item.category] = (counts[item.category] ?? 0) + 1;
  return { counts, secrets: walk.excluded.filter((item) => item.category === "secrets").map((item) => item.path), ignoredByGitignore: walk.ignoredCount };
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

export async function createSnapshot(options: CreateSnapshotOptions): Promise<SnapshotResult> {
  const limits = options.limits ?? DEFAULT_SNAPSHOT_LIMITS;
  const git = options.git ?? runSystemGit;
  const root = options.projectRoot;
  const walk = await walkTree({ root });
  checkSnapshotLimits(walk.entries, limits);
  const skipped = walk.skipped.map((item) => ({ path: item.path, kind: item.kind }));
  const excluded = summarizeExclusions(walk);

  await fs.mkdir(snapshotsDir(options.dataDir), { recursive: true, mode: 0o700 });
  const temp = await fs.mkdtemp(path.join(snapshotsDir(options.dataDir), ".tmp-"));
  const blobsDir = path.join(temp, "blobs");
  const gitDir = path.join(temp, "git");
  const packDir = path.join(gitDir, "objects", "pack");
  let pack: ReturnType<typeof createPackWriter> | null = null;
  try {
    await fs.mkdir(blobsDir);
    await fs.mkdir(packDir, { recursive: true });
    pack = createPackWriter({ dir: packDir });
    const writer = pack;
    const entries = new Array<ManifestEntry>(walk.entries.length);
    const storedBlobs = new Set<string>();
    let totalBytes = 0;

    await runLimited(walk.entries, options.concurrency ?? 8, async (entry: WalkEntry, index) => {
      if (entry.kind === "symlink") {
        const data = bytesOf(entry.target);
        const oid = writer.add("blob", data);
        entries[index] = { path: entry.path, type: "symlink", mode: "120000", size: data.length, sha256: sha256Of(data), oid, target: entry.target };
        return;
      }
      const { data, executable } = await readWalkedFile(root, entry.path, limits.maxFileBytes);
      totalBytes += data.length;
      const hash = sha256Of(data);
      const oid = writer.add("blob", data, gitObjectId("blob", data));
      entries[index] = { path: entry.path, type: "file", mode: executable ? "100755" : "100644", size: data.length, sha256: hash, oid };
      if (!storedBlobs.has(hash)) {
        storedBlobs.add(hash);
        await fs.writeFile(path.join(blobsDir, hash), data, { flag: "wx", mode: 0o644 });
      }
    });
    // files may have grown since the walk
    if (totalBytes > limits.maxTotalBytes) checkSnapshotLimits(entries.map((entry) => ({ kind: "file", path: entry.path, size: entry.size, executable: false })), limits);

    const id = snapshotIdOf({ projectId: options.projectId, entries });
    const finalDir = snapshotDir(options.dataDir, id);
    if (await exists(path.join(finalDir, MANIFEST_FILE))) {
      const stored = await readManifest({ dataDir: options.dataDir, snapshotId: id });
      return { manifest: { ...stored, skipped, excluded }, reused: true, dir: finalDir };
    }
    const tree = writeTrees(entries, (type, data) => writer.add(type, data));
    const commit = writer.add("commit", commitObject({ tree, message: `invariant-web snapshot ${id}` }));
    writer.finish();
    pack = null;
    await writeRepositoryFiles({ gitDir, commit });
    await writeIndex({ gitDir, commit, git });

    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      id,
      projectId: options.projectId,
      commit,
      fileCount: entries.length,
      bytes: entries.reduce((sum, entry) => sum + entry.size, 0),
      entries,
      skipped,
      excluded,
    };
    await fs.writeFile(path.join(temp, MANIFEST_FILE), serializeManifest(manifest), { mode: 0o644 });
    // a directory without a manifest is the leftover of an interrupted rename: replace it
    if (!(await exists(path.join(finalDir, MANIFEST_FILE)))) await fs.rm(finalDir, { recursive: true, force: true });
    try {
      await fs.rename(temp, finalDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      // the same snapshot was finished concurrently: keep that one
      return { manifest: { ...(await readManifest({ dataDir: options.dataDir, snapshotId: id })), skipped, excluded }, reused: true, dir: finalDir };
    }
    return { manifest, reused: false, dir: finalDir };
  } finally {
    pack?.abort();
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/** Deletes a snapshot's files (its database row is the caller's business). */
export async function deleteSnapshotFiles(options: { dataDir: string; snapshotId: string }): Promise<void> {
  await fs.rm(snapshotDir(options.dataDir, options.snapshotId), { recursive: true, force: true });
}
