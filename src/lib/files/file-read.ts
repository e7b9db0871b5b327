import { createHash } from "node:crypto";
import fsSync from "node:fs";
import fs from "node:fs/promises";

/**
 * Reading files that someone else controls (a project, a workspace an agent wrote): open with
 * O_NOFOLLOW so a symlink swapped in is never followed, O_NONBLOCK so a FIFO swapped in cannot
 * hang us, and check the opened thing is a regular file.
 */
export class NotRegularFileError extends Error {
  constructor(readonly reason: "missing" | "symlink" | "not-a-file") {
    super(
      reason === "missing"
        ? "the file is gone"
        : reason === "symlink"
          ? "the file is now a symlink"
          : "the path is not a regular file",
    );
  }
}

export class FileTooLargeError extends Error {
  constructor(readonly size: number) {
    super(`the file has ${size} bytes`);
  }
}

const STREAM_CHUNK = 1024 * 1024;

export async function openRegularFile(
  fsPath: Buffer | string,
): Promise<{ handle: fs.FileHandle; size: number; executable: boolean }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(fsPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new NotRegularFileError("missing");
    if (code === "ELOOP") throw new NotRegularFileError("symlink");
    throw error;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new NotRegularFileError("not-a-file");
  }
  return { handle, size: stat.size, executable: (stat.mode & 0o100) !== 0 };
}

/** sha256 and size of a regular file, streamed (for files too big to hold). */
export async function hashRegularFile(
  fsPath: Buffer | string,
): Promise<{ sha256: string; size: number; executable: boolean }> {
  const { handle, executable } = await openRegularFile(fsPath);
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.allocUnsafe(STREAM_CHUNK);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, STREAM_CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
      size += bytesRead;
    }
    return { sha256: hash.digest("hex"), size, executable };
  } finally {
    await handle.close();
  }
}

export function sha256Of(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

const NO_FOLLOW = fsSync.constants.O_RDONLY | fsSync.constants.O_NOFOLLOW | fsSync.constants.O_NONBLOCK;

function openRegularFileSync(fsPath: Buffer | string): { fd: number; size: number; executable: boolean } {
  let fd: number;
  try {
    fd = fsSync.openSync(fsPath, NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new NotRegularFileError("missing");
    if (code === "ELOOP") throw new NotRegularFileError("symlink");
    throw error;
  }
  const stat = fsSync.fstatSync(fd);
  if (!stat.isFile()) {
    fsSync.closeSync(fd);
    throw new NotRegularFileError("not-a-file");
  }
  return { fd, size: stat.size, executable: (stat.mode & 0o100) !== 0 };
}

/** The whole content of a regular file, with synchronous calls (see yielder.ts for why); reads the size fstat reported. */
export function readRegularFileSync(
  fsPath: Buffer | string,
  options: { maxBytes?: number } = {},
): { data: Buffer; executable: boolean } {
  const { fd, size, executable } = openRegularFileSync(fsPath);
  try {
    if (options.maxBytes !== undefined && size > options.maxBytes) throw new FileTooLargeError(size);
    const data = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = fsSync.readSync(fd, data, read, size - read, read);
      if (n === 0) break; // shrank meanwhile
      read += n;
    }
    return { data: read === size ? data : data.subarray(0, read), executable };
  } finally {
    fsSync.closeSync(fd);
  }
}

/** hashRegularFile with synchronous calls. */
export function hashRegularFileSync(fsPath: Buffer | string): { sha256: string; size: number; executable: boolean } {
  const { fd, executable } = openRegularFileSync(fsPath);
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.allocUnsafe(STREAM_CHUNK);
    let size = 0;
    for (;;) {
      const n = fsSync.readSync(fd, chunk, 0, STREAM_CHUNK, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
      size += n;
    }
    return { sha256: hash.digest("hex"), size, executable };
  } finally {
    fsSync.closeSync(fd);
  }
}
