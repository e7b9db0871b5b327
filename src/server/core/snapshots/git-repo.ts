import fs from "node:fs/promises";
import path from "node:path";
import { HOST_GIT_CONFIG_TEMPLATE, runHostGit } from "./host-git";
import { bytesOf, type BytePath } from "../../../lib/files/byte-path";
import type { GitMode } from "./manifest";
import type { GitObjectType } from "./git-pack";

/**
 * The git side of a snapshot: tree objects and the single commit (fixed author and date, so the
 * same content always gives the same commit), and the small files that make a directory a
 * repository. Objects go into the pack written by git-pack.ts; `git read-tree` (the system git)
 * then writes the index so `git status` and `git diff` work in a workspace straight away.
 */
export const SNAPSHOT_BRANCH = "main";
export const SNAPSHOT_AUTHOR = "invariant-web <snapshot@invariant-web.invalid>";
/** 2000-01-01T00:00:00Z: a fixed date keeps the commit id a function of the content. */
export const SNAPSHOT_DATE = "946684800 +0000";

export interface TreeInput {
  path: BytePath;
  mode: GitMode;
  oid: string;
}

interface DirNode {
  files: Map<BytePath, { mode: GitMode; oid: string }>;
  dirs: Map<BytePath, DirNode>;
}

type AddObject = (type: GitObjectType, data: Buffer) => string;

function writeDir(node: DirNode, add: AddObject): string {
  const items: { key: string; name: BytePath; mode: string; oid: string }[] = [];
  for (const [name, file] of node.files) items.push({ key: name, name, mode: file.mode, oid: file.oid });
  for (const [name, child] of node.dirs)
    items.push({ key: `${name}/`, name, mode: "40000", oid: writeDir(child, add) });
  // git sorts tree entries by name bytes, comparing a directory as if its name ended in "/"
  items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const parts: Buffer[] = [];
  for (const item of items)
    parts.push(Buffer.from(`${item.mode} `), bytesOf(item.name), Buffer.from([0]), Buffer.from(item.oid, "hex"));
  return add("tree", Buffer.concat(parts));
}

/** Adds the tree objects for `entries` and returns the root tree id. */
export function writeTrees(entries: readonly TreeInput[], add: AddObject): string {
  const root: DirNode = { files: new Map(), dirs: new Map() };
  for (const entry of entries) {
    const parts = entry.path.split("/");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let child = node.dirs.get(part);
      if (!child) {
        child = { files: new Map(), dirs: new Map() };
        node.dirs.set(part, child);
      }
      node = child;
    }
    node.files.set(parts[parts.length - 1] ?? "", { mode: entry.mode, oid: entry.oid });
  }
  return writeDir(root, add);
}

export function commitObject(options: { tree: string; message: string }): Buffer {
  return Buffer.from(
    `tree ${options.tree}\nauthor ${SNAPSHOT_AUTHOR} ${SNAPSHOT_DATE}\ncommitter ${SNAPSHOT_AUTHOR} ${SNAPSHOT_DATE}\n\n${options.message}\n`,
  );
}

/** HEAD, config and the branch ref around an objects/pack directory that already holds the pack. */
export async function writeRepositoryFiles(options: { gitDir: string; commit: string }): Promise<void> {
  const { gitDir } = options;
  await fs.mkdir(path.join(gitDir, "refs", "heads"), { recursive: true });
  await fs.mkdir(path.join(gitDir, "refs", "tags"), { recursive: true });
  await fs.mkdir(path.join(gitDir, "objects", "info"), { recursive: true });
  await fs.writeFile(path.join(gitDir, "HEAD"), `ref: refs/heads/${SNAPSHOT_BRANCH}\n`);
  await fs.writeFile(path.join(gitDir, "config"), HOST_GIT_CONFIG_TEMPLATE);
  await fs.writeFile(path.join(gitDir, "refs", "heads", SNAPSHOT_BRANCH), `${options.commit}\n`);
}

/** Runs git on the host against a git dir (host-git.ts: no hooks, fsmonitor, pager, drivers or outside config). */
export type GitRunner = (options: { gitDir: string; args: readonly string[] }) => Promise<string>;

export const runSystemGit: GitRunner = (options) => runHostGit(options);

/** Writes `<gitDir>/index` for the commit, so the work tree reads as clean once the files are in place. */
export async function writeIndex(options: { gitDir: string; commit: string; git: GitRunner }): Promise<void> {
  await options.git({ gitDir: options.gitDir, args: ["read-tree", options.commit] });
}
