import { AppError } from "../errors/app-error";
import { formatBytes } from "../../../lib/format-bytes";
import { displayPath } from "../../../lib/files/byte-path";
import type { WalkEntry } from "../../../lib/files/tree-walker";

/** How big a project may be to be snapshotted. Counted after exclusions (.gitignore, caches, secrets). */
export interface SnapshotLimits {
  /** Files and symlinks. */
  maxFiles: number;
  /** Sum of file sizes. */
  maxTotalBytes: number;
  /** Size of the largest single file. */
  maxFileBytes: number;
}

const MIB = 1024 * 1024;

export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = {
  maxFiles: 100_000,
  maxTotalBytes: 2048 * MIB,
  maxFileBytes: 100 * MIB,
};

const OFFENDERS_SHOWN = 5;

const count = (value: number) => value.toLocaleString("en-US");

/** Totals per top-level directory (two levels deep), biggest first. */
function heaviestDirectories(
  entries: readonly WalkEntry[],
  weigh: (entry: WalkEntry) => number,
): { dir: string; weight: number }[] {
  const totals = new Map<string, number>();
  for (const entry of entries) {
    const parts = entry.path.split("/");
    if (parts.length < 2) continue;
    const dir = parts.slice(0, Math.min(2, parts.length - 1)).join("/");
    totals.set(dir, (totals.get(dir) ?? 0) + weigh(entry));
  }
  return [...totals.entries()]
    .map(([dir, weight]) => ({ dir, weight }))
    .sort((a, b) => b.weight - a.weight)
    .slice(0, OFFENDERS_SHOWN);
}

const HOW_TO_FIX =
  "Add them to .gitignore, or raise the limit for this snapshot (limits in docs/snapshots-and-apply.md).";

/** Throws an AppError naming the limit and the biggest offenders when the walked tree does not fit. Nothing has been written at this point. */
export function checkSnapshotLimits(entries: readonly WalkEntry[], limits: SnapshotLimits): void {
  const tooBig = entries
    .filter((entry) => entry.kind === "file" && entry.size > limits.maxFileBytes)
    .sort((a, b) => b.size - a.size);
  if (tooBig.length > 0) {
    const list = tooBig
      .slice(0, OFFENDERS_SHOWN)
      .map((entry) => `${displayPath(entry.path)} (${formatBytes(entry.size)})`);
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Snapshot refused: ${count(tooBig.length)} file(s) exceed the single-file limit of ${formatBytes(limits.maxFileBytes)} (maxFileBytes): ${list.join(", ")}${tooBig.length > OFFENDERS_SHOWN ? ", …" : ""}. ${HOW_TO_FIX}`,
    });
  }
  if (entries.length > limits.maxFiles) {
    const dirs = heaviestDirectories(entries, () => 1).map(
      ({ dir, weight }) => `${displayPath(dir)}/ (${count(weight)} files)`,
    );
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Snapshot refused: the project has ${count(entries.length)} files after exclusions; the limit is ${count(limits.maxFiles)} (maxFiles). Directories with the most files: ${dirs.join(", ") || "(all at the top level)"}. ${HOW_TO_FIX}`,
    });
  }
  const total = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (total > limits.maxTotalBytes) {
    const dirs = heaviestDirectories(entries, (entry) => entry.size).map(
      ({ dir, weight }) => `${displayPath(dir)}/ (${formatBytes(weight)})`,
    );
    const files = [...entries]
      .sort((a, b) => b.size - a.size)
      .slice(0, OFFENDERS_SHOWN)
      .map((entry) => `${displayPath(entry.path)} (${formatBytes(entry.size)})`);
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Snapshot refused: the project holds ${formatBytes(total)} after exclusions; the limit is ${formatBytes(limits.maxTotalBytes)} (maxTotalBytes). Largest directories: ${dirs.join(", ") || "(none)"}; largest files: ${files.join(", ")}. ${HOW_TO_FIX}`,
    });
  }
}
