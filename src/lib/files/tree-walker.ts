import type { Dirent } from "node:fs";
import fs from "node:fs";
import { fromBytes, joinPath, toFsPath, type BytePath } from "./byte-path";
import { ALWAYS_EXCLUDED, type ExclusionCategory } from "./exclusion-rules";
import { readRegularFileSync } from "./file-read";
import { compileRule, isIgnored, matchRules, parseIgnoreFile, type IgnoreFile, type IgnoreRule } from "./gitignore";
import { createYielder } from "./yielder";

/**
 * Lists a directory tree the way a snapshot sees it: regular files and symlinks (never followed),
 * honouring .gitignore files (root and nested, plus .git/info/exclude) and the always-excluded
 * rules. Special files are reported, never opened. Synchronous fs calls, yielding now and then
 * (yielder.ts).
 */
export type WalkEntry =
  | { kind: "file"; path: BytePath; size: number; executable: boolean }
  | { kind: "symlink"; path: BytePath; target: BytePath; size: number };

export type SpecialKind = "fifo" | "socket" | "block-device" | "character-device" | "unknown";

export interface SkippedEntry {
  path: BytePath;
  kind: SpecialKind;
}

export interface ExcludedEntry {
  path: BytePath;
  category: ExclusionCategory;
  pattern: string;
  isDir: boolean;
}

export interface WalkResult {
  /** Sorted by path (byte order). */
  entries: WalkEntry[];
  skipped: SkippedEntry[];
  /** Hits of the always-excluded rules (a directory counts once). */
  excluded: ExcludedEntry[];
  /** Files and directories left out by .gitignore rules. */
  ignoredCount: number;
  /** Those files and directories (a directory counts once: nothing below it is walked). */
  ignored: BytePath[];
}

export interface TrackedPaths {
  /** A path the snapshot holds: never left out by ignore rules. */
  has(path: BytePath): boolean;
  /** A directory with tracked paths below it: always walked. */
  hasDir(path: BytePath): boolean;
}

export interface WalkOptions {
  root: string;
  tracked?: TrackedPaths;
}

const GITIGNORE = Buffer.from(".gitignore");
const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

const alwaysRules: { rule: IgnoreRule; category: ExclusionCategory; pattern: string }[] = ALWAYS_EXCLUDED.flatMap(
  (entry) => {
    const rule = compileRule(entry.pattern, { anyDepth: true });
    return rule ? [{ rule, category: entry.category, pattern: entry.pattern }] : [];
  },
);

export function alwaysExcludedRule(
  rel: BytePath,
  isDir: boolean,
): { category: ExclusionCategory; pattern: string } | null {
  for (const candidate of alwaysRules) {
    if (matchRules([candidate.rule], rel, isDir) === true) return candidate;
  }
  return null;
}

type EntryType = "dir" | "file" | "symlink" | SpecialKind;

function typeOf(item: {
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
}): EntryType | null {
  if (item.isDirectory()) return "dir";
  if (item.isFile()) return "file";
  if (item.isSymbolicLink()) return "symlink";
  if (item.isFIFO()) return "fifo";
  if (item.isSocket()) return "socket";
  if (item.isBlockDevice()) return "block-device";
  if (item.isCharacterDevice()) return "character-device";
  return null; // DT_UNKNOWN: ask lstat
}

/** Reads an ignore file without following links; an unreadable or linked file has no rules, as in git. */
function readIgnoreFile(fsPath: Buffer | string, base: BytePath): IgnoreFile | null {
  try {
    return parseIgnoreFile(fromBytes(readRegularFileSync(fsPath, { maxBytes: MAX_IGNORE_FILE_BYTES }).data), base);
  } catch {
    return null;
  }
}

/** The repository-local excludes (.git/info/exclude), lowest precedence at the root. */
function readInfoExclude(root: string): IgnoreFile | null {
  try {
    return fs.lstatSync(`${root}/.git`).isDirectory() ? readIgnoreFile(`${root}/.git/info/exclude`, "") : null;
  } catch {
    return null;
  }
}

export async function walkTree(options: WalkOptions): Promise<WalkResult> {
  const { root, tracked } = options;
  const result: WalkResult = { entries: [], skipped: [], excluded: [], ignoredCount: 0, ignored: [] };
  const yielder = createYielder();
  const infoExclude = readInfoExclude(root);
  const pending: { dirRel: BytePath; ignores: readonly IgnoreFile[] }[] = [
    { dirRel: "", ignores: infoExclude ? [infoExclude] : [] },
  ];

  for (let next = pending.pop(); next; next = pending.pop()) {
    if (yielder.due()) await yielder.pause();
    const { dirRel } = next;
    const dirents: Dirent<Buffer>[] = fs.readdirSync(toFsPath(root, dirRel), {
      withFileTypes: true,
      encoding: "buffer",
    });
    let ignores = next.ignores;
    if (dirents.some((dirent) => dirent.name.equals(GITIGNORE) && dirent.isFile())) {
      const file = readIgnoreFile(toFsPath(root, joinPath(dirRel, ".gitignore")), dirRel);
      if (file) ignores = [...ignores, file];
    }
    for (const dirent of dirents) {
      const rel = joinPath(dirRel, fromBytes(dirent.name));
      const fsPath = toFsPath(root, rel);
      let type = typeOf(dirent);
      let stat = null;
      if (type === null || type === "file") {
        stat = fs.lstatSync(fsPath);
        type = typeOf(stat) ?? "unknown";
      }
      const isDir = type === "dir";
      const isTracked = tracked ? tracked.has(rel) || (isDir && tracked.hasDir(rel)) : false;
      if (!isTracked) {
        const always = alwaysExcludedRule(rel, isDir);
        if (always) {
          result.excluded.push({ path: rel, category: always.category, pattern: always.pattern, isDir });
          continue;
        }
        if (isIgnored(ignores, rel, isDir)) {
          result.ignoredCount++;
          result.ignored.push(rel);
          continue;
        }
      }
      if (type === "dir") pending.push({ dirRel: rel, ignores });
      else if (type === "file" && stat)
        result.entries.push({ kind: "file", path: rel, size: stat.size, executable: (stat.mode & 0o100) !== 0 });
      else if (type === "symlink") {
        const target = fromBytes(fs.readlinkSync(fsPath, { encoding: "buffer" }));
        result.entries.push({ kind: "symlink", path: rel, target, size: target.length });
      } else result.skipped.push({ path: rel, kind: type === "file" ? "unknown" : type });
    }
  }
  result.entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  result.skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  result.excluded.sort((a, b) => (a.path < b.path ? -1 : 1));
  result.ignored.sort((a, b) => (a < b ? -1 : 1));
  return result;
}
