import fs from "node:fs/promises";
import path from "node:path";
import { FileTooLargeError, NotRegularFileError, openRegularFile } from "./file-read";

/**
 * Reading a file by its path inside a tree someone else controls (a project, a workspace an agent or a
 * test command wrote): every directory on the way must be a real directory — a symlink anywhere in the
 * path is refused, not followed — and the file itself is opened with O_NOFOLLOW | O_NONBLOCK (a
 * symlink or FIFO swapped in at the last moment can neither redirect nor hang the read) and must be a
 * regular file. Reads stop at `maxBytes`.
 */
export class PathThroughSymlinkError extends Error {
  constructor(readonly rel: string) {
    super(`${rel} goes through a symbolic link or a non-directory`);
  }
}

/** Checks each parent directory of `rel` under `root` with lstat: real directories only. */
export async function checkRealParents(options: { root: string; rel: string }): Promise<void> {
  const segments = options.rel.split("/");
  let current = options.root;
  for (const segment of segments.slice(0, -1)) {
    current = path.join(current, segment);
    const stat = await fs.lstat(current).catch(() => null);
    if (!stat) throw new NotRegularFileError("missing");
    if (!stat.isDirectory()) throw new PathThroughSymlinkError(options.rel);
  }
}

/** The bytes of a regular file at `rel` inside `root`; FileTooLargeError past `maxBytes` (nothing more is read). */
export async function readFileInsideTree(options: { root: string; rel: string; maxBytes: number }): Promise<Buffer> {
  await checkRealParents(options);
  const { handle, size } = await openRegularFile(path.join(options.root, options.rel));
  try {
    if (size > options.maxBytes) throw new FileTooLargeError(size);
    const data = Buffer.allocUnsafe(Math.min(size, options.maxBytes) + 1);
    let read = 0;
    while (read < data.length) {
      const { bytesRead } = await handle.read(data, read, data.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    // grew since fstat: still capped
    if (read > options.maxBytes) throw new FileTooLargeError(read);
    return data.subarray(0, read);
  } finally {
    await handle.close();
  }
}
