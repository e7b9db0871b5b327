import fs, { type Stats } from "node:fs";
import { fromBytes, joinPath, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { readRegularFileSync } from "../../../lib/files/file-read";
import { isIgnored, parseIgnoreFile, type IgnoreFile } from "../../../lib/files/gitignore";
import { alwaysExcludedRule, type SkippedEntry, type WalkEntry } from "../../../lib/files/tree-walker";
import type { createYielder } from "../../../lib/files/yielder";
import type { Manifest } from "../snapshots/manifest";
import { isOpaqueDir, isWhiteout, openLayeredTree, type LayeredTree } from "../workspaces/overlay-layers";

/**
 * What a copy-on-write workspace changed, read from its upper layer alone (O(changed files), the snapshot's
 * tree is only looked at for the .gitignore files on the way): the files and links the layer holds
 * (candidates — one copied up and left byte-identical is settled by its hash later, like any file), and
 * the snapshot's paths the merged view no longer has: under a whiteout (a deletion), below a non-directory
 * that replaced a directory, a file a directory replaced, or missing from an opaque directory (deleted
 * and made again). New paths follow the snapshot's rules, as the full walk does: .gitignore files of the
 * merged view and the always-excluded list, so an agent's node_modules is never a change.
 */
export interface OverlayListing {
  entries: WalkEntry[];
  /** Snapshot paths that are gone from the merged view, in path order. */
  gone: BytePath[];
  skipped: SkippedEntry[];
  /** New paths of the layer the ignore rules or the always-excluded list leave out (a directory once), in path order. */
  leftOut: BytePath[];
}

const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

/** The snapshot's paths, sorted (byte order): ranges by prefix are contiguous. */
function firstAtLeast(paths: readonly BytePath[], key: BytePath): number {
  let low = 0;
  let high = paths.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((paths[mid] ?? "") < key) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The snapshot's paths below directory `dir` ("a/b" → every "a/b/…"). */
function pathsBelow(paths: readonly BytePath[], dir: BytePath): BytePath[] {
  // "/" is 0x2f and "0" 0x30: [dir/, dir0) is exactly what starts with "dir/"
  return paths.slice(firstAtLeast(paths, `${dir}/`), firstAtLeast(paths, `${dir}0`));
}

function ignoreFileAt(tree: LayeredTree, rel: BytePath, base: BytePath): IgnoreFile | null {
  const hit = tree.lookup(rel);
  if (typeof hit === "string" || hit.type !== "file") return null;
  try {
    const { data } = readRegularFileSync(toFsPath(tree.layers[hit.layer] ?? "", rel), {
      maxBytes: MAX_IGNORE_FILE_BYTES,
    });
    return parseIgnoreFile(fromBytes(data), base);
  } catch {
    return null;
  }
}

interface Walk {
  upper: string;
  paths: readonly BytePath[];
  tracked: ReadonlySet<BytePath>;
  tree: LayeredTree;
  out: OverlayListing;
  goneExact: BytePath[];
  goneBelow: BytePath[];
}

function entryOf(walk: Walk, rel: BytePath, stat: Stats): WalkEntry {
  if (stat.isSymbolicLink()) {
    const target = fromBytes(fs.readlinkSync(toFsPath(walk.upper, rel), { encoding: "buffer" }));
    return { kind: "symlink", path: rel, target, size: target.length };
  }
  return { kind: "file", path: rel, size: stat.size, executable: (stat.mode & 0o100) !== 0 };
}

/** One entry of the upper layer; returns whether to descend into it (a directory). */
function visit(walk: Walk, rel: BytePath, ignores: readonly IgnoreFile[]): boolean {
  const fsPath = toFsPath(walk.upper, rel);
  const stat = fs.lstatSync(fsPath);
  const hasBelow = pathsBelow(walk.paths, rel).length > 0;
  const isDir = stat.isDirectory();
  if (isWhiteout(stat)) {
    if (walk.tracked.has(rel)) walk.goneExact.push(rel);
    if (hasBelow) walk.goneBelow.push(rel);
    return false;
  }
  if (isDir) {
    if (walk.tracked.has(rel)) walk.goneExact.push(rel); // a file the directory replaced
    if (hasBelow && isOpaqueDir(fsPath)) walk.goneBelow.push(rel);
  } else {
    if (hasBelow) walk.goneBelow.push(rel); // a directory this file or link replaced
    if (!stat.isFile() && !stat.isSymbolicLink()) {
      if (walk.tracked.has(rel)) walk.goneExact.push(rel);
      walk.out.skipped.push({ path: rel, kind: stat.isFIFO() ? "fifo" : stat.isSocket() ? "socket" : "unknown" });
      return false;
    }
  }
  const isTracked = walk.tracked.has(rel) || (isDir && hasBelow);
  if (!isTracked && (alwaysExcludedRule(rel, isDir) || isIgnored(ignores, rel, isDir))) {
    walk.out.leftOut.push(rel);
    return false;
  }
  if (isDir) return true;
  walk.out.entries.push(entryOf(walk, rel, stat));
  return false;
}

export async function listOverlayChanges(options: {
  upper: string;
  lower: string;
  manifest: Manifest;
  yielder: ReturnType<typeof createYielder>;
}): Promise<OverlayListing> {
  const paths = options.manifest.entries.map((entry) => entry.path);
  const tree = openLayeredTree([options.upper, options.lower]);
  const out: OverlayListing = { entries: [], gone: [], skipped: [], leftOut: [] };
  const walk: Walk = { upper: options.upper, paths, tracked: new Set(paths), tree, out, goneExact: [], goneBelow: [] };
  const git = tree.lookup(".git");
  const infoExclude =
    typeof git !== "string" && git.type === "dir" ? ignoreFileAt(tree, ".git/info/exclude", "") : null;
  const pending: { dirRel: BytePath; ignores: readonly IgnoreFile[] }[] = [
    { dirRel: "", ignores: infoExclude ? [infoExclude] : [] },
  ];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (options.yielder.due()) await options.yielder.pause();
    const own = ignoreFileAt(tree, joinPath(next.dirRel, ".gitignore"), next.dirRel);
    const ignores = own ? [...next.ignores, own] : next.ignores;
    for (const name of fs.readdirSync(toFsPath(options.upper, next.dirRel), { encoding: "buffer" })) {
      const rel = joinPath(next.dirRel, fromBytes(name));
      if (visit(walk, rel, ignores)) pending.push({ dirRel: rel, ignores });
    }
  }
  const present = new Set(out.entries.map((entry) => entry.path));
  const gone = new Set([...walk.goneExact, ...walk.goneBelow.flatMap((dir) => pathsBelow(paths, dir))]);
  out.gone = [...gone].filter((rel) => !present.has(rel)).sort((a, b) => (a < b ? -1 : 1));
  out.entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  out.skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  out.leftOut.sort((a, b) => (a < b ? -1 : 1));
  return out;
}
