import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { ancestorsOf, bytesOf, toFsPath, type BytePath } from "../snapshots/byte-path";
import { blobPath, readManifest, snapshotDir, type Manifest } from "../snapshots/manifest";
import { runLimited } from "../snapshots/run-limited";

/**
 * A workspace is a private, writable copy of a snapshot for one run:
 *   <dataDir>/workspaces/<id>/meta.json   which project and snapshot it came from
 *   <dataDir>/workspaces/<id>/tree/       the files, plus .git (the snapshot's one-commit repository)
 * Files are copied from the snapshot's blobs with COPYFILE_FICLONE: a reflink (copy-on-write clone)
 * where the filesystem supports it (btrfs, XFS, bcachefs, APFS…), else the kernel's in-place copy
 * (copy_file_range). Never hard links: an in-place edit in the workspace would change the snapshot.
 */
export interface WorkspaceMeta {
  id: string;
  projectId: string;
  snapshotId: string;
  createdAt: string;
}

export interface WorkspaceInfo extends WorkspaceMeta {
  /** The workspace's own directory (meta.json lives here). */
  dir: string;
  /** The copy of the project: what a run mounts and edits. */
  path: string;
}

const metaSchema = z.object({ id: z.string(), projectId: z.string(), snapshotId: z.string(), createdAt: z.string() });
const WORKSPACE_ID = /^ws-[0-9a-f]{24}$/;
const META_FILE = "meta.json";
const TREE_DIR = "tree";

export function workspacesDir(dataDir: string): string {
  return path.join(dataDir, "workspaces");
}

function workspaceDir(dataDir: string, workspaceId: string): string {
  if (!WORKSPACE_ID.test(workspaceId)) throw new AppError({ code: "BAD_REQUEST", field: "workspaceId", message: `"${workspaceId}" is not a workspace id (ws- and 24 hex digits).` });
  return path.join(workspacesDir(dataDir), workspaceId);
}

/** Every directory that holds an entry, parents before children. */
function directoriesOf(manifest: Manifest): BytePath[] {
  const dirs = new Set<BytePath>();
  for (const entry of manifest.entries) for (const dir of ancestorsOf(entry.path)) dirs.add(dir);
  return [...dirs].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

/** Copies the snapshot's files into `tree` (which must exist and be empty). */
export async function materializeSnapshot(options: { dataDir: string; manifest: Manifest; tree: string; concurrency?: number }): Promise<void> {
  const { dataDir, manifest, tree } = options;
  for (const dir of directoriesOf(manifest)) await fs.mkdir(toFsPath(tree, dir));
  await runLimited(manifest.entries, options.concurrency ?? 16, async (entry) => {
    const target = toFsPath(tree, entry.path);
    if (entry.type === "symlink") {
      await fs.symlink(bytesOf(entry.target ?? ""), target);
      return;
    }
    // the blob is 0644: copyFile gives the copy the same mode, so only executables need a chmod
    await fs.copyFile(blobPath(dataDir, manifest.id, entry.sha256), target, constants.COPYFILE_FICLONE);
    if (entry.mode === "100755") await fs.chmod(target, 0o755);
  });
  await fs.cp(path.join(snapshotDir(dataDir, manifest.id), "git"), path.join(tree, ".git"), { recursive: true, mode: constants.COPYFILE_FICLONE });
}

export async function createWorkspace(options: { dataDir: string; snapshotId: string; concurrency?: number; now?: () => Date }): Promise<WorkspaceInfo> {
  const manifest = await readManifest({ dataDir: options.dataDir, snapshotId: options.snapshotId });
  const id = `ws-${randomBytes(12).toString("hex")}`;
  await fs.mkdir(workspacesDir(options.dataDir), { recursive: true, mode: 0o700 });
  // built under a temporary name, so a half-made workspace is never visible under its id
  const temp = path.join(workspacesDir(options.dataDir), `.tmp-${id}`);
  const meta: WorkspaceMeta = { id, projectId: manifest.projectId, snapshotId: manifest.id, createdAt: (options.now?.() ?? new Date()).toISOString() };
  try {
    await fs.mkdir(path.join(temp, TREE_DIR), { recursive: true, mode: 0o700 });
    await materializeSnapshot({ dataDir: options.dataDir, manifest, tree: path.join(temp, TREE_DIR), ...(options.concurrency ? { concurrency: options.concurrency } : {}) });
    await fs.writeFile(path.join(temp, META_FILE), JSON.stringify(meta));
    await fs.rename(temp, workspaceDir(options.dataDir, id));
  } catch (error) {
    await removeTree(temp);
    throw error;
  }
  const dir = workspaceDir(options.dataDir, id);
  return { ...meta, dir, path: path.join(dir, TREE_DIR) };
}

export async function readWorkspace(options: { dataDir: string; workspaceId: string }): Promise<WorkspaceInfo> {
  const dir = workspaceDir(options.dataDir, options.workspaceId);
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, META_FILE), "utf8");
  } catch {
    throw new AppError({ code: "NOT_FOUND", message: `No workspace ${options.workspaceId}. It may have been removed with its run.` });
  }
  return { ...metaSchema.parse(JSON.parse(text)), dir, path: path.join(dir, TREE_DIR) };
}

/** rm -rf that also copes with directories a run made read-only. */
async function removeTree(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES" && (error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    await makeWritable(Buffer.from(dir));
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** chmod u+rwx on every directory below `dir` (Buffer paths: names need not be UTF-8). */
async function makeWritable(dir: Buffer): Promise<void> {
  await fs.chmod(dir, 0o700).catch(() => undefined);
  for (const entry of await fs.readdir(dir, { withFileTypes: true, encoding: "buffer" })) {
    if (entry.isDirectory()) await makeWritable(Buffer.concat([dir, Buffer.from("/"), entry.name]));
  }
}

export async function removeWorkspace(options: { dataDir: string; workspaceId: string }): Promise<{ removed: boolean }> {
  const dir = workspaceDir(options.dataDir, options.workspaceId);
  const existed = await fs.access(dir).then(
    () => true,
    () => false,
  );
  await removeTree(dir);
  return { removed: existed };
}
