import fsp from "node:fs/promises";
import path from "node:path";
import { fromText } from "../../../lib/files/byte-path";
import { NotRegularFileError } from "../../../lib/files/file-read";
import { checkRealParents, PathThroughSymlinkError, readFileInsideTree } from "../../../lib/files/tree-read";
import { openLayeredTree } from "./overlay-layers";
import type { WorkspaceLayers } from "./workspace-mount";

/**
 * A workspace's files as the host reads them, by relative path (text), whatever its kind: a copy's tree
 * directly, an overlay's merged view (its upper layer first, then the snapshot's tree, whiteouts and opaque
 * directories honoured: overlay-layers.ts) without mounting anything. The same guarantees either way: a
 * symlink or non-directory on the way is refused (PathThroughSymlinkError), the file itself is opened with
 * O_NOFOLLOW | O_NONBLOCK (NotRegularFileError), and reads stop at `maxBytes`.
 * (The diff reads an overlay's upper layer alone: diffs/overlay-changes.ts.)
 */
export interface WorkspaceFiles {
  readFile(rel: string, maxBytes: number): Promise<Buffer>;
  /** Throws like readFile when a directory on the way to `rel` is not a real one (or is missing). */
  checkParents(rel: string): Promise<void>;
  /** What is at `rel`, or null. */
  kind(rel: string): Promise<"dir" | "file" | "symlink" | "special" | null>;
  /** The names in the directory at `rel` (none when it is not one). */
  readdir(rel: string): Promise<string[]>;
  /** The target text of the symlink at `rel`, or null when there is none there (throws like readFile for its parents). */
  readLink(rel: string): Promise<Buffer | null>;
}

/** The target of the symlink at `fsPath`, or null when something else (or nothing) is there. */
async function linkAt(fsPath: string): Promise<Buffer | null> {
  const stat = await fsp.lstat(fsPath).catch(() => null);
  if (!stat?.isSymbolicLink()) return null;
  return fsp.readlink(fsPath, { encoding: "buffer" }).catch(() => null);
}

export function plainFiles(root: string): WorkspaceFiles {
  return {
    readFile: (rel, maxBytes) => readFileInsideTree({ root, rel, maxBytes }),
    checkParents: (rel) => checkRealParents({ root, rel }),
    async kind(rel) {
      const stat = await fsp.lstat(path.join(root, rel)).catch(() => null);
      if (!stat) return null;
      return stat.isDirectory() ? "dir" : stat.isFile() ? "file" : stat.isSymbolicLink() ? "symlink" : "special";
    },
    readdir: (rel) => fsp.readdir(path.join(root, rel)).catch(() => [] as string[]),
    async readLink(rel) {
      await checkRealParents({ root, rel });
      return linkAt(path.join(root, rel));
    },
  };
}

/** The merged view of `layers` (topmost first). */
export function layeredFiles(layers: readonly string[]): WorkspaceFiles {
  const tree = openLayeredTree(layers);
  const parentOf = (rel: string) => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "");
  function parentsProblem(rel: string): Error | null {
    const parent = parentOf(rel);
    if (parent === "") return null;
    const hit = tree.lookup(fromText(parent));
    if (hit === "missing") return new NotRegularFileError("missing");
    if (hit === "through-non-directory" || hit.type !== "dir") return new PathThroughSymlinkError(rel);
    return null;
  }
  const checkParents = (rel: string): Promise<void> => {
    const problem = parentsProblem(rel);
    return problem ? Promise.reject(problem) : Promise.resolve();
  };
  return {
    checkParents,
    async readFile(rel, maxBytes) {
      await checkParents(rel);
      const hit = tree.lookup(fromText(rel));
      if (typeof hit === "string") throw new NotRegularFileError("missing");
      // the layer that holds it has real directories all the way (an upper layer has nothing else)
      return readFileInsideTree({ root: layers[hit.layer] ?? "", rel, maxBytes });
    },
    kind(rel) {
      const hit = tree.lookup(fromText(rel));
      return Promise.resolve(typeof hit === "string" ? null : hit.type);
    },
    readdir(rel) {
      return Promise.resolve(
        tree.readdir(fromText(rel)).map((entry) => Buffer.from(entry.name, "latin1").toString("utf8")),
      );
    },
    async readLink(rel) {
      await checkParents(rel);
      const hit = tree.lookup(fromText(rel));
      if (typeof hit === "string" || hit.type !== "symlink") return null;
      return linkAt(path.join(layers[hit.layer] ?? "", rel));
    },
  };
}

/** The reader for a workspace: its tree, or its upper layer over the snapshot's. */
export function workspaceFiles(workspace: { path: string; overlay: WorkspaceLayers }): WorkspaceFiles {
  return workspace.overlay ? layeredFiles([workspace.path, workspace.overlay.lower]) : plainFiles(workspace.path);
}
