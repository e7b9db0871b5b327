import { isUtf8 } from "node:buffer";
import fs from "node:fs/promises";
import { AppError } from "../../core/errors/app-error";
import { bytesOf, displayPath, fromBytes, parentOf, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { NotRegularFileError, openRegularFile, sha256Of } from "../../../lib/files/file-read";
import { hashFileOffThread } from "../../../lib/files/hash-thread";
import { isBinary } from "../../core/diffs/unified-patch";
import type { FileState } from "../../core/diffs/workspace-diff";
import { streamPacked } from "../../core/snapshots/git-pack";
import type { Manifest, ManifestEntry } from "../../core/snapshots/manifest";
import { dataDirPaths } from "../../core/storage/data-dir";
import { REVIEW_TEXT_MAX_BYTES, type ReviewSide } from "../../../shared/review-schemas";

/**
 * One side of a file for the review: the snapshot's version (read from its pack) or a workspace's
 * (read with O_NOFOLLOW below a tree whose directories are checked to be real ones, so a link an
 * agent planted cannot point a read outside the workspace). Text only for UTF-8 up to 1 MiB.
 */
export const MISSING_SIDE: ReviewSide = {
  exists: false,
  size: null,
  sha256: null,
  mode: null,
  text: null,
  reason: null,
  target: null,
};

function contentSide(data: Buffer, mode: string): ReviewSide {
  const text = isBinary(data) || !isUtf8(data) ? null : data.toString("utf8");
  return {
    exists: true,
    size: data.length,
    sha256: sha256Of(data),
    mode,
    text,
    reason: text === null ? "binary" : null,
    target: null,
  };
}

function linkSide(target: BytePath): ReviewSide {
  const bytes = bytesOf(target);
  return {
    exists: true,
    size: bytes.length,
    sha256: sha256Of(bytes),
    mode: "120000",
    text: null,
    reason: "symlink",
    target: displayPath(target),
  };
}

function tooLargeSide(state: { size: number; sha256: string; mode: string }): ReviewSide {
  return { exists: true, ...state, text: null, reason: "too-large", target: null };
}

async function withPack<T>(
  dataDir: string,
  manifest: Manifest,
  read: (handle: fs.FileHandle) => Promise<T>,
): Promise<T> {
  const handle = await fs.open(dataDirPaths(dataDir).snapshot(manifest.id).pack(manifest.pack), "r");
  try {
    return await read(handle);
  } finally {
    await handle.close();
  }
}

async function readSnapshotEntry(handle: fs.FileHandle, entry: ManifestEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of streamPacked(handle, entry.offset, entry.size)) chunks.push(chunk);
  return Buffer.concat(chunks, entry.size);
}

export async function snapshotSide(options: {
  dataDir: string;
  manifest: Manifest;
  entry: ManifestEntry | undefined;
}): Promise<ReviewSide> {
  const { entry } = options;
  if (!entry) return MISSING_SIDE;
  if (entry.type === "symlink") return linkSide(entry.target ?? "");
  if (entry.size > REVIEW_TEXT_MAX_BYTES) return tooLargeSide(entry);
  const data = await withPack(options.dataDir, options.manifest, (handle) => readSnapshotEntry(handle, entry));
  return contentSide(data, entry.mode);
}

/** Refuses a path whose directories are not plain directories of the tree (a symlinked parent, say). */
async function checkInsideTree(root: string, path: BytePath): Promise<boolean> {
  const parent = parentOf(path);
  if (parent === "") return true;
  const real = await fs.realpath(toFsPath(root, parent), { encoding: "buffer" }).catch(() => null);
  if (!real) return false;
  const realRoot = await fs.realpath(root);
  return real.equals(toFsPath(realRoot, parent));
}

/** A workspace file's side; `known` is the state the diff hashed, used for files too big to read. */
export async function workspaceSide(options: {
  root: string;
  path: BytePath;
  known: FileState | null;
}): Promise<ReviewSide> {
  const { root, path } = options;
  if (!(await checkInsideTree(root, path))) return MISSING_SIDE;
  const fsPath = toFsPath(root, path);
  const stat = await fs.lstat(fsPath).catch(() => null);
  if (!stat) return MISSING_SIDE;
  if (stat.isSymbolicLink()) return linkSide(fromBytes(await fs.readlink(fsPath, { encoding: "buffer" })));
  if (!stat.isFile()) return MISSING_SIDE;
  const mode = (stat.mode & 0o100) !== 0 ? "100755" : "100644";
  try {
    if (stat.size > REVIEW_TEXT_MAX_BYTES) {
      if (options.known?.type === "file" && options.known.size === stat.size)
        return tooLargeSide({ ...options.known, mode });
      const hashed = await hashFileOffThread(fsPath);
      return tooLargeSide({ size: hashed.size, sha256: hashed.sha256, mode });
    }
    const { handle } = await openRegularFile(fsPath);
    try {
      return contentSide(await handle.readFile(), mode);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NotRegularFileError) return MISSING_SIDE;
    throw error;
  }
}

/** The raw bytes of one side, as chunks (for the download); null when that side does not exist. */
export async function sideBytes(
  options:
    | { from: "snapshot"; dataDir: string; manifest: Manifest; entry: ManifestEntry | undefined }
    | { from: "workspace"; root: string; path: BytePath },
): Promise<{ size: number; chunks: AsyncIterable<Buffer> | Iterable<Buffer> } | null> {
  if (options.from === "snapshot") {
    const { entry, manifest, dataDir } = options;
    if (!entry) return null;
    if (entry.type === "symlink") return { size: entry.size, chunks: [bytesOf(entry.target ?? "")] };
    const handle = await fs.open(dataDirPaths(dataDir).snapshot(manifest.id).pack(manifest.pack), "r");
    return { size: entry.size, chunks: closing(handle, streamPacked(handle, entry.offset, entry.size)) };
  }
  const { root, path } = options;
  if (!(await checkInsideTree(root, path))) return null;
  const fsPath = toFsPath(root, path);
  const stat = await fs.lstat(fsPath).catch(() => null);
  if (stat?.isSymbolicLink()) {
    const target = await fs.readlink(fsPath, { encoding: "buffer" });
    return { size: target.length, chunks: [target] };
  }
  try {
    const { handle, size } = await openRegularFile(fsPath);
    return { size, chunks: closing(handle, handle.createReadStream({ autoClose: false, highWaterMark: 1 << 20 })) };
  } catch (error) {
    if (error instanceof NotRegularFileError) return null;
    throw new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `Could not read ${displayPath(path)}.`,
      cause: error,
    });
  }
}

async function* closing(handle: fs.FileHandle, source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source) yield chunk;
  } finally {
    await handle.close();
  }
}
