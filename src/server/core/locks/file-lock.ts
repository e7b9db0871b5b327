import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createKeyedLock } from "./keyed-lock";

/**
 * A lock shared by every process on this host (the web process, each worker): a file created with
 * O_EXCL in one folder, holding who took it. A holder that died (its pid is gone) or that held it past
 * `staleMs` loses it to the next taker; a waiter gives up after `waitMs` with FileLockTimeoutError.
 * Within one process, takers of one key queue in memory first, so the file is polled only across processes.
 */
export interface FileLockOptions {
  /** The lock's folder; one per host for all processes that must agree (default: <tmp>/invariant-locks). */
  dir?: string;
  staleMs?: number;
  waitMs?: number;
}

const STALE_MS = 120_000;
const WAIT_MS = 60_000;
const POLL_MS = 25;

export class FileLockTimeoutError extends Error {}

interface Holder {
  pid: number;
  host: string;
  token: string;
  at: number;
}

export function defaultLockDir(): string {
  return path.join(os.tmpdir(), "invariant-locks");
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // someone else's process, alive
  }
}

async function readHolder(file: string): Promise<{ text: string; holder: Holder | null } | null> {
  const text = await fs.readFile(file, "utf8").catch(() => null);
  if (text === null) return null;
  try {
    return { text, holder: JSON.parse(text) as Holder };
  } catch {
    return { text, holder: null }; // being written right now, or garbage
  }
}

function isStale(holder: Holder | null, mtimeMs: number, staleMs: number): boolean {
  const since = holder?.at ?? mtimeMs;
  if (Date.now() - since > staleMs) return true;
  return holder !== null && holder.host === os.hostname() && !isAlive(holder.pid);
}

/** Removes a stale lock file if it is still the one read (a fresh taker's file is left alone). */
async function breakIfStale(file: string, staleMs: number): Promise<void> {
  const stat = await fs.stat(file).catch(() => null);
  const read = await readHolder(file);
  if (!stat || !read || !isStale(read.holder, stat.mtimeMs, staleMs)) return;
  const again = await readHolder(file);
  if (again?.text === read.text) await fs.rm(file, { force: true });
}

async function take(file: string, options: Required<FileLockOptions>): Promise<string> {
  const token = randomBytes(8).toString("hex");
  const holder: Holder = { pid: process.pid, host: os.hostname(), token, at: Date.now() };
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    try {
      const handle = await fs.open(file, "wx", 0o666);
      await handle.writeFile(JSON.stringify(holder)).finally(() => handle.close());
      return token;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    await breakIfStale(file, options.staleMs);
    if (Date.now() > deadline)
      throw new FileLockTimeoutError(`The lock ${file} was held for more than ${options.waitMs / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS + Math.random() * POLL_MS));
  }
}

async function release(file: string, token: string): Promise<void> {
  const read = await readHolder(file);
  if (read?.holder?.token === token) await fs.rm(file, { force: true });
}

const inProcess = createKeyedLock();

/** Runs `task` while holding the host-wide lock `key` (letters, digits, `.`, `_`, `-`). */
export async function withFileLock<T>(key: string, task: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(key)) throw new Error(`Not a lock name: ${JSON.stringify(key)}`);
  const settled: Required<FileLockOptions> = {
    dir: options.dir ?? defaultLockDir(),
    staleMs: options.staleMs ?? STALE_MS,
    waitMs: options.waitMs ?? WAIT_MS,
  };
  const file = path.join(settled.dir, `${key}.lock`);
  return inProcess(file, async () => {
    await fs.mkdir(settled.dir, { recursive: true, mode: 0o777 });
    // every user's processes take locks here (umask would keep others out of a folder this one made)
    await fs.chmod(settled.dir, 0o777).catch(() => undefined);
    const token = await take(file, settled);
    try {
      return await task();
    } finally {
      await release(file, token).catch(() => undefined);
    }
  });
}
