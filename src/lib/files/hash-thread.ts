import { Worker } from "node:worker_threads";
import { NotRegularFileError } from "./file-read";

/**
 * sha256 of a big file on a worker thread, so hashing gigabytes (an agent's 2 GiB sparse file) costs
 * the event loop nothing but two messages. One lazily started, unref'd thread serves every caller in
 * turn; it opens like file-read.ts does (O_NOFOLLOW, O_NONBLOCK, regular files only). The thread's
 * code is inline (eval), so it runs the same from the sources, under Vitest and from the bundle.
 */
const THREAD_CODE = `
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { createHash } = require("node:crypto");
const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
const chunk = Buffer.allocUnsafe(1024 * 1024);
parentPort.on("message", ({ id, path }) => {
  let fd;
  try {
    fd = fs.openSync(Buffer.from(path), FLAGS);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return parentPort.postMessage({ id, reason: "not-a-file" });
    const hash = createHash("sha256");
    let size = 0;
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
      size += n;
    }
    parentPort.postMessage({ id, sha256: hash.digest("hex"), size, executable: (stat.mode & 0o100) !== 0 });
  } catch (error) {
    const code = error && error.code;
    if (code === "ENOENT" || code === "ENOTDIR") parentPort.postMessage({ id, reason: "missing" });
    else if (code === "ELOOP") parentPort.postMessage({ id, reason: "symlink" });
    else parentPort.postMessage({ id, error: String((error && error.message) || error) });
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
});
`;

interface Reply {
  id: number;
  sha256?: string;
  size?: number;
  executable?: boolean;
  reason?: "missing" | "symlink" | "not-a-file";
  error?: string;
}

export interface FileHash {
  sha256: string;
  size: number;
  executable: boolean;
}

let thread: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, { resolve: (hash: FileHash) => void; reject: (error: Error) => void }>();

function failAll(error: Error): void {
  for (const { reject } of waiting.values()) reject(error);
  waiting.clear();
  thread = null;
}

function hashThread(): Worker {
  if (thread) return thread;
  const started = new Worker(THREAD_CODE, { eval: true });
  started.unref();
  started.on("message", (reply: Reply) => {
    const pending = waiting.get(reply.id);
    if (!pending) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) started.unref();
    if (reply.reason) pending.reject(new NotRegularFileError(reply.reason));
    else if (reply.error !== undefined || reply.sha256 === undefined) pending.reject(new Error(reply.error));
    else pending.resolve({ sha256: reply.sha256, size: reply.size ?? 0, executable: reply.executable ?? false });
  });
  started.on("error", (error) => failAll(error));
  started.on("exit", (code) => failAll(new Error(`the hashing thread exited (${code})`)));
  thread = started;
  return started;
}

/** sha256, size and executable bit of a regular file, computed off the main thread. */
export function hashFileOffThread(fsPath: Buffer | string): Promise<FileHash> {
  const worker = hashThread();
  const id = nextId++;
  return new Promise<FileHash>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.ref(); // keep the process alive while a hash is owed
    worker.postMessage({ id, path: typeof fsPath === "string" ? Buffer.from(fsPath) : fsPath });
  });
}
