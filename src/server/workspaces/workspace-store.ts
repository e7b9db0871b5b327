import { randomBytes } from "node:crypto";
import fs, { constants } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { ancestorsOf, bytesOf, toFsPath, type BytePath } from "../../lib/files/byte-path";
import { SNAPSHOT_BRANCH } from "../snapshots/git-repo";
import { writeHostGitDir } from "../snapshots/host-git";
import { readManifest, type Manifest } from "../snapshots/manifest";
import { dataDirPaths, isWorkspaceId, workspacePaths } from "../storage/data-dir";
import { openSnapshotContent } from "../snapshots/snapshot-content";
import { createYielder } from "../../lib/files/yielder";

/**
 * A workspace is a private, writable copy of a snapshot for one run:
 *   <dataDir>/workspaces/<id>/meta.json   which project and snapshot it came from
 *   <dataDir>/workspaces/<id>/tree/       the files, plus .git (the agent's: the host never runs git on it)
 *   <dataDir>/workspaces/<id>/git/        the host-facing git dir (never mounted; see snapshots/host-git.ts)
 * The files are written from the snapshot's pack in one sequential read (the pack stores content
 * uncompressed at known offsets), each a new file of its own: never a hard link, so an edit in the
 * workspace cannot reach the snapshot. The .git has its own refs, index and objects directory and
 * borrows the snapshot's immutable objects through objects/info/alternates — no copy at all. A run
 * that uses git inside a container must therefore mount <dataDir>/snapshots/<id>/git/objects
 * read-only at the same path (see docs/snapshots-and-apply.md).
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
/** Every directory that holds an entry, parents before children. */
function directoriesOf(manifest: Manifest): BytePath[] {
  const dirs = new Set<BytePath>();
  for (const entry of manifest.entries) for (const dir of ancestorsOf(entry.path)) dirs.add(dir);
  return [...dirs].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Writes the snapshot's files and its .git into `tree` (which must exist and be empty). */
export async function materializeSnapshot(options: {
  dataDir: string;
  manifest: Manifest;
  tree: string;
}): Promise<void> {
  const { dataDir, manifest, tree } = options;
  const yielder = createYielder();
  for (const dir of directoriesOf(manifest)) fs.mkdirSync(toFsPath(tree, dir));
  const content = openSnapshotContent({ dataDir, manifest });
  try {
    for (const entry of manifest.entries) {
      if (yielder.due()) await yielder.pause();
      const target = toFsPath(tree, entry.path);
      if (entry.type === "symlink") {
        fs.symlinkSync(bytesOf(entry.target ?? ""), target);
        continue;
      }
      const data = content.read(entry);
      const fd = fs.openSync(target, CREATE, entry.mode === "100755" ? 0o755 : 0o644);
      try {
        for (let written = 0; written < data.length;) written += fs.writeSync(fd, data, written, data.length - written);
      } finally {
        fs.closeSync(fd);
      }
    }
  } finally {
    content.close();
  }
  writeWorkspaceGit({
    snapshotGit: dataDirPaths(dataDir).snapshot(manifest.id).git,
    gitDir: path.join(tree, ".git"),
  });
}

/** The workspace's own .git: copies of the small files, and the snapshot's objects as an alternate. */
function writeWorkspaceGit(options: { snapshotGit: string; gitDir: string }): void {
  const { snapshotGit, gitDir } = options;
  for (const dir of ["refs/heads", "refs/tags", "objects/info", "objects/pack"])
    fs.mkdirSync(path.join(gitDir, dir), { recursive: true });
  for (const file of ["HEAD", "config", "index", `refs/heads/${SNAPSHOT_BRANCH}`]) {
    fs.copyFileSync(path.join(snapshotGit, file), path.join(gitDir, file), constants.COPYFILE_FICLONE);
  }
  fs.writeFileSync(path.join(gitDir, "objects", "info", "alternates"), `${path.join(snapshotGit, "objects")}\n`);
}

/**
 * Makes a new workspace: `fill` writes its tree and git dir under a temporary name, so a half-made
 * workspace is never visible under its id; its meta.json is written last, then it is renamed.
 */
async function buildWorkspace(options: {
  dataDir: string;
  origin: { projectId: string; snapshotId: string };
  now?: () => Date;
  fill: (temp: ReturnType<typeof workspacePaths>) => Promise<void>;
}): Promise<WorkspaceInfo> {
  const id = `ws-${randomBytes(12).toString("hex")}`;
  const paths = dataDirPaths(options.dataDir);
  await fsp.mkdir(paths.workspaces, { recursive: true, mode: 0o700 });
  const temp = workspacePaths(path.join(paths.workspaces, `.tmp-${id}`));
  const meta: WorkspaceMeta = { id, ...options.origin, createdAt: (options.now?.() ?? new Date()).toISOString() };
  const final = paths.workspace(id);
  try {
    await fsp.mkdir(temp.dir, { recursive: true, mode: 0o700 });
    await options.fill(temp);
    await fsp.writeFile(temp.meta, JSON.stringify(meta));
    await fsp.rename(temp.dir, final.dir);
  } catch (error) {
    await removeTree(temp.dir);
    throw error;
  }
  return { ...meta, dir: final.dir, path: final.tree };
}

export async function createWorkspace(options: {
  dataDir: string;
  snapshotId: string;
  now?: () => Date;
}): Promise<WorkspaceInfo> {
  const manifest = await readManifest({ dataDir: options.dataDir, snapshotId: options.snapshotId });
  const snapshotGit = dataDirPaths(options.dataDir).snapshot(manifest.id).git;
  return buildWorkspace({
    dataDir: options.dataDir,
    origin: { projectId: manifest.projectId, snapshotId: manifest.id },
    ...(options.now ? { now: options.now } : {}),
    fill: async (temp) => {
      await fsp.mkdir(temp.tree, { recursive: true, mode: 0o700 });
      await materializeSnapshot({ dataDir: options.dataDir, manifest, tree: temp.tree });
      writeHostGitDir({ snapshotGit, gitDir: temp.git, branch: SNAPSHOT_BRANCH });
    },
  });
}

/** Ids of every workspace made from one of a project's snapshots (trials', previews'). */
export async function workspacesOfProject(options: { dataDir: string; projectId: string }): Promise<string[]> {
  const paths = dataDirPaths(options.dataDir);
  const names = await fsp.readdir(paths.workspaces).catch(() => [] as string[]);
  const ids: string[] = [];
  for (const name of names.filter(isWorkspaceId)) {
    const meta = metaSchema.safeParse(
      JSON.parse(await fsp.readFile(paths.workspace(name).meta, "utf8").catch(() => "null")),
    );
    if (meta.success && meta.data.projectId === options.projectId) ids.push(name);
  }
  return ids;
}

export async function readWorkspace(options: { dataDir: string; workspaceId: string }): Promise<WorkspaceInfo> {
  const { dir, meta, tree } = dataDirPaths(options.dataDir).workspace(options.workspaceId);
  let text: string;
  try {
    text = await fsp.readFile(meta, "utf8");
  } catch {
    throw new AppError({
      code: "NOT_FOUND",
      message: `No workspace ${options.workspaceId}. It may have been removed with its run.`,
    });
  }
  return { ...metaSchema.parse(JSON.parse(text)), dir, path: tree };
}

/** rm -rf that also copes with directories a run made read-only. */
export async function removeTree(dir: string): Promise<void> {
  try {
    await fsp.rm(dir, { recursive: true, force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES" && (error as NodeJS.ErrnoException).code !== "EPERM")
      throw error;
    await makeWritable(Buffer.from(dir));
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** chmod u+rwx on every directory below `dir` (Buffer paths: names need not be UTF-8). */
async function makeWritable(dir: Buffer): Promise<void> {
  await fsp.chmod(dir, 0o700).catch(() => undefined);
  for (const entry of await fsp.readdir(dir, { withFileTypes: true, encoding: "buffer" })) {
    if (entry.isDirectory()) await makeWritable(Buffer.concat([dir, Buffer.from("/"), entry.name]));
  }
}

export async function removeWorkspace(options: {
  dataDir: string;
  workspaceId: string;
}): Promise<{ removed: boolean }> {
  const { dir } = dataDirPaths(options.dataDir).workspace(options.workspaceId);
  const existed = await fsp.access(dir).then(
    () => true,
    () => false,
  );
  await removeTree(dir);
  return { removed: existed };
}

/**
 * A new workspace holding a copy of another one's tree and git dir (continuing a trial's result in a
 * session): same snapshot, a new id; built under a temporary name like createWorkspace.
 */
export async function copyWorkspace(options: {
  dataDir: string;
  workspaceId: string;
  now?: () => Date;
}): Promise<WorkspaceInfo> {
  const source = await readWorkspace(options);
  const from = dataDirPaths(options.dataDir).workspace(source.id);
  return buildWorkspace({
    dataDir: options.dataDir,
    origin: { projectId: source.projectId, snapshotId: source.snapshotId },
    ...(options.now ? { now: options.now } : {}),
    fill: async (temp) => {
      await fsp.cp(from.tree, temp.tree, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      await fsp.cp(from.git, temp.git, { recursive: true, verbatimSymlinks: true });
    },
  });
}
