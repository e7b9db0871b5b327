import fs from "node:fs";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { bytesOf, displayPath, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import type { ExclusionCategory } from "../../../lib/files/exclusion-rules";
import { FileTooLargeError, NotRegularFileError, readRegularFileSync, sha256Of } from "../../../lib/files/file-read";
import { createPackWriter, gitObjectId, type PackWriter } from "./git-pack";
import { commitObject, runSystemGit, writeIndex, writeRepositoryFiles, writeTrees, type GitRunner } from "./git-repo";
import {
  MANIFEST_FORMAT,
  readManifest,
  serializeManifest,
  snapshotIdOf,
  type Manifest,
  type ManifestEntry,
} from "./manifest";
import { dataDirPaths, snapshotPaths } from "../storage/data-dir";
import { checkSnapshotLimits, DEFAULT_SNAPSHOT_LIMITS, type SnapshotLimits } from "./snapshot-limits";
import { walkTree, type WalkResult } from "../../../lib/files/tree-walker";
import { createYielder } from "../../../lib/files/yielder";
import { asSnapshotError, CHANGED_WHILE_TAKEN } from "./snapshot-errors";
import { requireProjectFolder } from "../storage/project-folder";

/**
 * Freezes a project directory into <dataDir>/snapshots/<id>/:
 *   manifest.json   every file and symlink: path, type, git mode, size, sha256, git blob id, link
 *                   target, and where its bytes are in the pack
 *   git/            a repository whose single commit is the snapshot: HEAD, config, refs, the index,
 *                   and one pack (git-pack.ts) that is also the only copy of the content
 * The whole directory is built under snapshots/.tmp-*, then renamed into place, so a refused or
 * failed snapshot leaves nothing behind, and an existing snapshot with the same id is reused.
 */
export interface CreateSnapshotOptions {
  projectRoot: string;
  projectId: string;
  dataDir: string;
  limits?: SnapshotLimits;
  git?: GitRunner;
}

export interface SnapshotResult {
  manifest: Manifest;
  /** An identical snapshot of this project already existed and was reused. */
  reused: boolean;
  dir: string;
}

/** Reads a walked file again, refusing what changed in between (never following a link swapped in). */
function readWalkedFile(root: string, rel: BytePath, maxBytes: number): { data: Buffer; executable: boolean } {
  try {
    return readRegularFileSync(toFsPath(root, rel), { maxBytes });
  } catch (error) {
    // grown past the limit since the walk
    if (error instanceof FileTooLargeError)
      checkSnapshotLimits([{ kind: "file", path: rel, size: error.size, executable: false }], {
        ...DEFAULT_SNAPSHOT_LIMITS,
        maxFileBytes: maxBytes,
      });
    if (!(error instanceof NotRegularFileError)) throw error;
    const what = {
      missing: "was deleted",
      symlink: "was replaced by a symlink",
      "not-a-file": "stopped being a regular file",
    }[error.reason];
    throw new AppError({
      code: "CONFLICT",
      message: `${CHANGED_WHILE_TAKEN} (${displayPath(rel)} ${what}). Nothing was saved; try again when the project is quiet.`,
    });
  }
}

function summarizeExclusions(walk: WalkResult): Manifest["excluded"] {
  const counts: Partial<Record<ExclusionCategory, number>> = {};
  for (const item of walk.excluded) counts[item.category] = (counts[item.category] ?? 0) + 1;
  return {
    counts,
    secrets: walk.excluded.filter((item) => item.category === "secrets").map((item) => item.path),
    ignoredByGitignore: walk.ignoredCount,
  };
}

function hasManifest(dir: string): boolean {
  return fs.existsSync(snapshotPaths(dir).manifest);
}

/** Reads, hashes and packs every walked entry, in path order. */
async function packEntries(options: {
  root: string;
  walk: WalkResult;
  pack: PackWriter;
  limits: SnapshotLimits;
}): Promise<ManifestEntry[]> {
  const { root, walk, pack, limits } = options;
  const yielder = createYielder();
  const entries: ManifestEntry[] = [];
  let totalBytes = 0;
  for (const entry of walk.entries) {
    if (yielder.due()) await yielder.pause();
    if (entry.kind === "symlink") {
      const data = bytesOf(entry.target); // git stores a link as a blob holding its target
      const { oid, offset } = pack.add("blob", data);
      entries.push({
        path: entry.path,
        type: "symlink",
        mode: "120000",
        size: data.length,
        sha256: sha256Of(data),
        oid,
        offset,
        target: entry.target,
      });
      continue;
    }
    const { data, executable } = readWalkedFile(root, entry.path, limits.maxFileBytes);
    totalBytes += data.length;
    const { oid, offset } = pack.add("blob", data, gitObjectId("blob", data));
    entries.push({
      path: entry.path,
      type: "file",
      mode: executable ? "100755" : "100644",
      size: data.length,
      sha256: sha256Of(data),
      oid,
      offset,
    });
  }
  // files may have grown since the walk
  if (totalBytes > limits.maxTotalBytes)
    checkSnapshotLimits(
      entries.map((entry) => ({ kind: "file", path: entry.path, size: entry.size, executable: false })),
      limits,
    );
  return entries;
}

export async function createSnapshot(options: CreateSnapshotOptions): Promise<SnapshotResult> {
  try {
    requireProjectFolder(options.projectRoot);
    return await freeze(options);
  } catch (error) {
    throw asSnapshotError(error, options.projectRoot);
  }
}

async function freeze(options: CreateSnapshotOptions): Promise<SnapshotResult> {
  const limits = options.limits ?? DEFAULT_SNAPSHOT_LIMITS;
  const git = options.git ?? runSystemGit;
  const walk = await walkTree({ root: options.projectRoot });
  checkSnapshotLimits(walk.entries, limits);
  const skipped = walk.skipped.map((item) => ({ path: item.path, kind: item.kind }));
  const excluded = summarizeExclusions(walk);

  const paths = dataDirPaths(options.dataDir);
  fs.mkdirSync(paths.snapshots, { recursive: true, mode: 0o700 });
  const temp = fs.mkdtempSync(path.join(paths.snapshots, ".tmp-"));
  const building = snapshotPaths(temp);
  const gitDir = building.git;
  let pack: PackWriter | null = null;
  try {
    fs.mkdirSync(building.packDir, { recursive: true });
    pack = createPackWriter({ dir: building.packDir });
    const writer = pack;
    const entries = await packEntries({ root: options.projectRoot, walk, pack: writer, limits });

    const id = snapshotIdOf({ projectId: options.projectId, entries });
    const finalDir = paths.snapshot(id).dir;
    if (hasManifest(finalDir)) {
      const stored = await readManifest({ dataDir: options.dataDir, snapshotId: id });
      return { manifest: { ...stored, skipped, excluded }, reused: true, dir: finalDir };
    }
    const tree = writeTrees(entries, (type, data) => writer.add(type, data).oid);
    const commit = writer.add("commit", commitObject({ tree, message: `invariant-web snapshot ${id}` })).oid;
    const packName = writer.finish();
    pack = null;
    await writeRepositoryFiles({ gitDir, commit });
    await writeIndex({ gitDir, commit, git });

    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      id,
      projectId: options.projectId,
      commit,
      pack: packName,
      fileCount: entries.length,
      bytes: entries.reduce((sum, entry) => sum + entry.size, 0),
      entries,
      skipped,
      excluded,
    };
    fs.writeFileSync(building.manifest, serializeManifest(manifest), { mode: 0o644 });
    // a directory without a manifest is the leftover of an interrupted rename: replace it
    if (!hasManifest(finalDir)) fs.rmSync(finalDir, { recursive: true, force: true });
    try {
      fs.renameSync(temp, finalDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      // the same snapshot was finished concurrently: keep that one
      return {
        manifest: { ...(await readManifest({ dataDir: options.dataDir, snapshotId: id })), skipped, excluded },
        reused: true,
        dir: finalDir,
      };
    }
    return { manifest, reused: false, dir: finalDir };
  } finally {
    pack?.abort();
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** Deletes a snapshot's files (its database row is the caller's business). Workspaces made from it lose their git objects. */
export function deleteSnapshotFiles(options: { dataDir: string; snapshotId: string }): void {
  fs.rmSync(dataDirPaths(options.dataDir).snapshot(options.snapshotId).dir, { recursive: true, force: true });
}
