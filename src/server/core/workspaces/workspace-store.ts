import { randomBytes } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { SNAPSHOT_BRANCH } from "../snapshots/git-repo";
import { writeHostGitDir } from "../snapshots/host-git";
import { readManifest } from "../snapshots/manifest";
import { dataDirPaths, isWorkspaceId, workspacePaths } from "../storage/data-dir";
import { materializeSnapshot } from "./materialize-snapshot";
import {
  copyOverlayLayer,
  ensureSnapshotTree,
  flattenLayerInto,
  isPermissionError,
  knownSnapshotTree,
  makeOverlayLayer,
} from "./overlay-workspace";
import { workspaceKindSchema, type WorkspaceKind } from "./workspace-kind";

/**
 * A workspace is a private, writable view of a snapshot for one run, of one of two kinds:
 *   copy     <dataDir>/workspaces/<id>/tree/    the files, plus .git (the agent's: the host never runs git on it)
 *   overlay  <dataDir>/workspaces/<id>/upper/   only what runs changed, over the snapshot's shared tree
 *            <dataDir>/workspaces/<id>/work/    (<dataDir>/snapshots/<id>/tree, overlay-workspace.ts)
 * and in both meta.json (which project and snapshot, which kind) and git/, the host-facing git dir (never
 * mounted; see snapshots/host-git.ts). A copy's files are written from the snapshot's pack in one
 * sequential read (the pack stores content uncompressed at known offsets), each a new file of its own:
 * never a hard link, so an edit in the workspace cannot reach the snapshot. The .git has its own refs, index and objects directory and
 * borrows the snapshot's immutable objects through objects/info/alternates — no copy at all. A run
 * that uses git inside a container must therefore mount <dataDir>/snapshots/<id>/git/objects
 * read-only at the same path (see docs/snapshots-and-apply.md). Containers get a workspace through
 * workspaceMount(); the host reads its files through workspace-files.ts.
 */
export interface WorkspaceMeta {
  id: string;
  projectId: string;
  snapshotId: string;
  createdAt: string;
  kind: WorkspaceKind;
}

export interface WorkspaceInfo extends WorkspaceMeta {
  /** The workspace's own directory (meta.json lives here). */
  dir: string;
  /**
   * The workspace's own files: a copy's whole tree, an overlay's upper layer. Either way every file a run
   * changed has its current bytes here (an overlay's unchanged files are the snapshot's).
   */
  path: string;
  /** An overlay's layers: the snapshot's shared tree below `path`, and overlayfs' work dir; null for a copy. */
  overlay: { lower: string; workDir: string } | null;
}

const metaSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  snapshotId: z.string(),
  createdAt: z.string(),
  // meta.json files from before copy-on-write workspaces are copies
  kind: workspaceKindSchema.default("copy"),
});

/** The workspace as its meta.json and its kind's layout say. */
export function workspaceInfo(options: { dataDir: string; meta: WorkspaceMeta }): WorkspaceInfo {
  const { meta } = options;
  const paths = dataDirPaths(options.dataDir);
  const own = paths.workspace(meta.id);
  if (meta.kind === "copy") return { ...meta, dir: own.dir, path: own.tree, overlay: null };
  return {
    ...meta,
    dir: own.dir,
    path: own.upper,
    overlay: { lower: paths.snapshot(meta.snapshotId).tree, workDir: own.work },
  };
}
/**
 * Makes a new workspace: `fill` writes its tree and git dir under a temporary name, so a half-made
 * workspace is never visible under its id; its meta.json is written last, then it is renamed.
 */
async function buildWorkspace(options: {
  dataDir: string;
  origin: { projectId: string; snapshotId: string; kind: WorkspaceKind };
  now?: () => Date;
  /** A given id (a workspace a worker on another host made, materialised here under the same id). */
  id?: string;
  fill: (temp: ReturnType<typeof workspacePaths>) => Promise<void>;
}): Promise<WorkspaceInfo> {
  const id = options.id ?? `ws-${randomBytes(12).toString("hex")}`;
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
  return workspaceInfo({ dataDir: options.dataDir, meta });
}

/**
 * A new workspace of a snapshot. A copy writes every file; an overlay (`kind`, see workspace-kind.ts)
 * writes the snapshot's shared tree the first time only, then just two empty directories.
 */
export async function createWorkspace(options: {
  dataDir: string;
  snapshotId: string;
  kind?: WorkspaceKind;
  now?: () => Date;
  /** The id to give it (default: a new one); refused when a workspace with it exists. */
  id?: string;
  /** Changes written over the fresh copy before it becomes visible (a remote trial's changed files). */
  apply?: (tree: string) => Promise<void>;
}): Promise<WorkspaceInfo> {
  const kind = options.kind ?? "copy";
  // an overlay of a snapshot whose tree this process has seen needs nothing of its manifest: O(1)
  const known = kind === "overlay" ? await knownSnapshotTree(options) : null;
  const manifest = known ? null : await readManifest({ dataDir: options.dataDir, snapshotId: options.snapshotId });
  const origin = { projectId: known?.projectId ?? manifest?.projectId ?? "", snapshotId: options.snapshotId, kind };
  const snapshotGit = dataDirPaths(options.dataDir).snapshot(origin.snapshotId).git;
  if (kind === "overlay" && manifest) await ensureSnapshotTree({ dataDir: options.dataDir, manifest });
  return buildWorkspace({
    dataDir: options.dataDir,
    origin,
    ...(options.now ? { now: options.now } : {}),
    ...(options.id ? { id: options.id } : {}),
    fill: async (temp) => {
      if (kind === "overlay" || !manifest) await makeOverlayLayer(temp);
      else {
        await fsp.mkdir(temp.tree, { recursive: true, mode: 0o700 });
        await materializeSnapshot({ dataDir: options.dataDir, manifest, tree: temp.tree });
      }
      writeHostGitDir({ snapshotGit, gitDir: temp.git, branch: SNAPSHOT_BRANCH });
      await options.apply?.(temp.tree);
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
  const { meta } = dataDirPaths(options.dataDir).workspace(options.workspaceId);
  let text: string;
  try {
    text = await fsp.readFile(meta, "utf8");
  } catch {
    throw new AppError({
      code: "NOT_FOUND",
      message: `No workspace ${options.workspaceId}. It may have been removed with its run.`,
    });
  }
  return workspaceInfo({ dataDir: options.dataDir, meta: metaSchema.parse(JSON.parse(text)) });
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
 * A new workspace holding a copy of another one's files and git dir (continuing a trial's result in a
 * session): same snapshot and kind, a new id; built under a temporary name like createWorkspace. An
 * overlay's copy is a copy of its upper layer only (O(changed files)); where that cannot be made (its
 * whiteouts are device files only root may create), the new workspace is a copy of the merged view.
 */
export async function copyWorkspace(options: {
  dataDir: string;
  workspaceId: string;
  now?: () => Date;
}): Promise<WorkspaceInfo> {
  const source = await readWorkspace(options);
  const from = dataDirPaths(options.dataDir).workspace(source.id);
  const build = (kind: WorkspaceKind, files: (temp: ReturnType<typeof workspacePaths>) => Promise<void>) =>
    buildWorkspace({
      dataDir: options.dataDir,
      origin: { projectId: source.projectId, snapshotId: source.snapshotId, kind },
      ...(options.now ? { now: options.now } : {}),
      fill: async (temp) => {
        await files(temp);
        await fsp.cp(from.git, temp.git, { recursive: true, verbatimSymlinks: true });
      },
    });
  if (!source.overlay)
    return build("copy", (temp) =>
      fsp.cp(from.tree, temp.tree, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true }),
    );
  return build("overlay", (temp) => copyOverlayLayer({ from: source.path, to: temp })).catch(async (error: unknown) => {
    if (!isPermissionError(error)) throw error;
    const manifest = await readManifest({ dataDir: options.dataDir, snapshotId: source.snapshotId });
    return build("copy", async (temp) => {
      await fsp.mkdir(temp.tree, { recursive: true, mode: 0o700 });
      await materializeSnapshot({ dataDir: options.dataDir, manifest, tree: temp.tree });
      await flattenLayerInto({ upper: source.path, tree: temp.tree });
    });
  });
}
