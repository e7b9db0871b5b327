import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import { promisify } from "node:util";
import { formatBytes } from "../../../lib/format-bytes";
import { AppError } from "../errors/app-error";

const run = promisify(execFile);

/** How often a running container's writes are measured. */
export const DISK_CHECK_INTERVAL_MS = 2_000;

/** What a container passed its disk budget with. */
export interface DiskOverrun {
  usedBytes: number;
  budgetBytes: number;
}

/** A commit refused because the container is past its disk budget (its image would hold all it wrote). */
export class DiskBudgetExceededError extends AppError {
  readonly overrun: DiskOverrun;

  constructor(overrun: DiskOverrun) {
    super({ code: "CONFLICT", message: `Not kept as an image: ${diskBudgetReason(overrun)}` });
    this.overrun = overrun;
  }
}

/** The reason a trial shows: what was written, against which budget, and where to change it. */
export function diskBudgetReason(overrun: DiskOverrun): string {
  return `Stopped: it wrote ${formatBytes(overrun.usedBytes)} to disk, past the disk budget of ${formatBytes(overrun.budgetBytes)} per trial (the project's "Disk budget per trial" setting).`;
}

/**
 * Disk space the folders take (allocated blocks, as `du` counts them: a sparse file costs what it
 * really holds), hard links counted once, without crossing into other filesystems. Folders that are
 * gone count 0. Runs in a child process, so a big tree never blocks the event loop.
 */
export async function folderBytes(dirs: readonly string[]): Promise<number> {
  const present: string[] = [];
  for (const dir of dirs) if ((await fs.lstat(dir).catch(() => null))?.isDirectory()) present.push(dir);
  if (present.length === 0) return 0;
  // du exits 1 when an entry vanishes while it walks (a container deleting files): its totals still stand
  const { stdout } = await run("du", ["-s", "-k", "-x", ...present], { maxBuffer: 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
  );
  let kib = 0;
  for (const line of stdout.split("\n")) {
    const value = Number(line.split("\t")[0]);
    if (Number.isFinite(value)) kib += value;
  }
  return kib * 1024;
}

/**
 * Measures `measure()` every `intervalMs` while a container runs and calls `onOverrun` once when it
 * passes `budgetBytes`. A measurement that fails is skipped. Returns a function that stops watching.
 */
export function watchDisk(options: {
  budgetBytes: number;
  intervalMs: number;
  measure: () => Promise<number>;
  onOverrun: (overrun: DiskOverrun) => void;
}): () => void {
  let stopped = false;
  let busy = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    void options
      .measure()
      .then((usedBytes) => {
        if (stopped || usedBytes <= options.budgetBytes) return;
        stopped = true;
        clearInterval(timer);
        options.onOverrun({ usedBytes, budgetBytes: options.budgetBytes });
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, options.intervalMs);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
