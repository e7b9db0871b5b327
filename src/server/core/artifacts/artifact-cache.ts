import type fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { dataDirPaths } from "../storage/data-dir";

/** How long a worker on another host keeps a cached snapshot or study's test files that no job used. */
export const DEFAULT_CACHE_DAYS = 7;

/** Records that a job used a cached entry now (its folder's mtime is its last use). */
export async function touchCacheEntry(dir: string, now = new Date()): Promise<void> {
  await fsp.utimes(dir, now, now).catch(() => undefined);
}

/** The snapshots that workspaces still in this data dir are made from (a copy-on-write one reads its tree). */
async function snapshotsInUse(workspacesDir: string): Promise<Set<string>> {
  const used = new Set<string>();
  for (const name of await fsp.readdir(workspacesDir).catch(() => [] as string[])) {
    const meta = await fsp.readFile(path.join(workspacesDir, name, "meta.json"), "utf8").catch(() => null);
    if (!meta) continue;
    try {
      const snapshotId = (JSON.parse(meta) as { snapshotId?: unknown }).snapshotId;
      if (typeof snapshotId === "string") used.add(snapshotId);
    } catch {
      // a workspace whose meta is unreadable keeps nothing alive; the garbage collector deals with it
    }
  }
  return used;
}

/** The entries of `dir` (folders) whose last use is before `before`, except `keep`. */
async function staleFolders(dir: string, before: number, keep: Set<string>): Promise<string[]> {
  const stale: string[] = [];
  for (const entry of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [] as fs.Dirent[])) {
    if (!entry.isDirectory() || entry.name.startsWith(".") || keep.has(entry.name)) continue;
    const stat = await fsp.stat(path.join(dir, entry.name)).catch(() => null);
    if (stat && stat.mtimeMs < before) stale.push(entry.name);
  }
  return stale;
}

/**
 * Fetched installed dependencies (`deps-…` folders, marked used by each trial that mounts them) and
 * downloads of them left unfinished, unused since `before`. Overlay scratch folders are not touched.
 */
async function pruneDependencies(dir: string, before: number): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [] as fs.Dirent[])) {
    const fetched = entry.isDirectory() && /^deps-[0-9a-f]{24}$/.test(entry.name);
    const partial = entry.isFile() && /^\.fetch-[0-9a-f]{64}\.part$/.test(entry.name);
    if (!fetched && !partial) continue;
    const stat = await fsp.stat(path.join(dir, entry.name)).catch(() => null);
    if (!stat || stat.mtimeMs >= before) continue;
    await fsp.rm(path.join(dir, entry.name), { recursive: true, force: true });
    if (fetched) removed.push(entry.name);
  }
  return removed;
}

/**
 * Removes what a worker on another host fetched and no job used for `maxAgeDays`: snapshots (unless a
 * workspace here is made from one), studies' captured test files and installed dependencies. Everything is named by content and
 * fetched again when a job needs it, so this loses nothing. Run when the worker starts, before it takes
 * jobs; images are left to the engine (`docker image prune`).
 */
export async function pruneArtifactCache(options: {
  dataDir: string;
  maxAgeDays: number;
  now?: Date;
}): Promise<{ snapshots: string[]; studies: string[]; dependencies: string[] }> {
  const paths = dataDirPaths(options.dataDir);
  const before = (options.now ?? new Date()).getTime() - options.maxAgeDays * 24 * 60 * 60 * 1000;
  const snapshots = await staleFolders(paths.snapshots, before, await snapshotsInUse(paths.workspaces));
  for (const id of snapshots) await fsp.rm(path.join(paths.snapshots, id), { recursive: true, force: true });
  const studiesDir = path.dirname(paths.study("any")); // <data dir>/studies
  const studies: string[] = [];
  for (const id of await fsp.readdir(studiesDir).catch(() => [] as string[])) {
    const testFiles = paths.testFiles(id);
    const stat = await fsp.stat(testFiles).catch(() => null);
    if (!stat?.isDirectory() || stat.mtimeMs >= before) continue;
    await fsp.rm(testFiles, { recursive: true, force: true });
    await fsp.rmdir(paths.study(id)).catch(() => undefined); // only when nothing else is there
    studies.push(id);
  }
  return { snapshots, studies, dependencies: await pruneDependencies(paths.dependencies, before) };
}
