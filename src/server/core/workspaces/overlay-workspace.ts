import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { fromBytes, joinPath, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import type { Manifest } from "../snapshots/manifest";
import { dataDirPaths, type workspacePaths } from "../storage/data-dir";
import { materializeSnapshot } from "./materialize-snapshot";
import { isOpaqueDir, isWhiteout } from "./overlay-layers";

const run = promisify(execFile);

/**
 * The files of a copy-on-write workspace: the snapshot's tree, written once per snapshot and shared by
 * every workspace of it (the lower layer), and per workspace only an upper and a work directory, which a
 * container's overlay mount (runtime/docker-container.ts) puts together. Nothing here mounts anything.
 */
const building = new Map<string, Promise<string>>();
/** Snapshot trees this process made or found, with their project (a snapshot never changes). */
const treesSeen = new Map<string, string>();

/** The project of a snapshot whose tree this process has already seen (and that still exists), or null. */
export async function knownSnapshotTree(options: { dataDir: string; snapshotId: string }) {
  const projectId = treesSeen.get(`${options.dataDir}\0${options.snapshotId}`);
  if (!projectId || !(await exists(dataDirPaths(options.dataDir).snapshot(options.snapshotId).tree))) return null;
  return { projectId };
}

async function exists(target: string): Promise<boolean> {
  return fsp.lstat(target).then(
    () => true,
    () => false,
  );
}

/**
 * The snapshot's tree, `snapshots/<id>/tree`: written under a `.tmp-tree-*` name and renamed, so a
 * half-written tree is never used; when two processes race, the first rename wins and the other's copy
 * is dropped. Concurrent callers in one process share one build.
 */
export function ensureSnapshotTree(options: { dataDir: string; manifest: Manifest }): Promise<string> {
  const tree = dataDirPaths(options.dataDir).snapshot(options.manifest.id).tree;
  const known = building.get(tree);
  if (known) return known;
  const made = (async () => {
    if (await exists(tree)) return tree;
    const temp = path.join(path.dirname(tree), `.tmp-tree-${randomBytes(6).toString("hex")}`);
    try {
      await fsp.mkdir(temp, { mode: 0o755 });
      await materializeSnapshot({ dataDir: options.dataDir, manifest: options.manifest, tree: temp });
      await fsp.rename(temp, tree).catch(async (error: NodeJS.ErrnoException) => {
        if ((error.code !== "ENOTEMPTY" && error.code !== "EEXIST") || !(await exists(tree))) throw error;
      });
    } finally {
      await fsp.rm(temp, { recursive: true, force: true });
    }
    return tree;
  })();
  building.set(tree, made);
  void made.then(
    () => treesSeen.set(`${options.dataDir}\0${options.manifest.id}`, options.manifest.projectId),
    () => undefined,
  );
  void made.finally(() => building.delete(tree)).catch(() => undefined);
  return made;
}

/** A new workspace's own layer: an empty upper (the merged root takes its mode) and overlayfs' work dir. */
export async function makeOverlayLayer(temp: ReturnType<typeof workspacePaths>): Promise<void> {
  await fsp.mkdir(temp.upper, { mode: 0o755 });
  await fsp.mkdir(temp.work, { mode: 0o700 });
}

export class LayerCopyRefusedError extends Error {}

export function isPermissionError(error: unknown): boolean {
  return error instanceof LayerCopyRefusedError;
}

/**
 * Another workspace's upper layer copied as this one's (`cp -a`: whiteouts, modes, links and the
 * `user.overlay.*` attributes kept). A whiteout is a device file, which only root may create: for a worker
 * that is not root the copy is refused with LayerCopyRefusedError (the caller makes a copy workspace then).
 */
export async function copyOverlayLayer(options: { from: string; to: ReturnType<typeof workspacePaths> }) {
  await fsp.mkdir(options.to.work, { mode: 0o700 });
  try {
    await run("cp", ["-a", "--", options.from, options.to.upper], { maxBuffer: 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? "");
    if (/Operation not permitted|Permission denied/i.test(stderr))
      throw new LayerCopyRefusedError(`could not copy the workspace's layer: ${stderr.trim()}`, { cause: error });
    throw error;
  }
}

/** Removes whatever `target` is (nothing, a file, a link, a tree). */
async function clear(target: Buffer): Promise<void> {
  await fsp.rm(target, { recursive: true, force: true });
}

/**
 * Applies an upper layer to a full copy of its lower one (`tree`), giving the merged view as plain files:
 * whiteouts delete, opaque directories replace, everything else is written over. O(the layer's size).
 */
export async function flattenLayerInto(options: { upper: string; tree: string }): Promise<void> {
  const pending: BytePath[] = [""];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const raw of fs.readdirSync(toFsPath(options.upper, dir), { encoding: "buffer" })) {
      const rel = joinPath(dir, fromBytes(raw));
      const from = toFsPath(options.upper, rel);
      const to = toFsPath(options.tree, rel);
      const stat = fs.lstatSync(from);
      const there = await fsp.lstat(to).catch(() => null);
      if (isWhiteout(stat)) await clear(to);
      else if (stat.isDirectory()) {
        if (!there?.isDirectory() || isOpaqueDir(from)) {
          await clear(to);
          await fsp.mkdir(to);
        }
        await fsp.chmod(to, stat.mode & 0o7777);
        pending.push(rel);
      } else if (stat.isSymbolicLink()) {
        await clear(to);
        await fsp.symlink(await fsp.readlink(from, { encoding: "buffer" }), to);
      } else if (stat.isFile()) {
        await clear(to);
        await fsp.copyFile(from, to);
        await fsp.chmod(to, stat.mode & 0o7777);
      }
    }
  }
}
