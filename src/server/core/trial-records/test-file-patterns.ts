import { isUtf8 } from "node:buffer";
import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { fromText } from "../../../lib/files/byte-path";
import { compileRule } from "../../../lib/files/gitignore";
import { alwaysExcludedRule } from "../../../lib/files/tree-walker";
import type { CapturedFileKind } from "../../../shared/captured-files";
import {
  base64Bytes,
  isTestFilePattern,
  MAX_TEST_FILES,
  MAX_TEST_FILES_TOTAL_BYTES,
  type TestFileInput,
} from "../../../shared/study-inputs";

/**
 * Folders and globs among a study's test files (`test/`, `test/**`, `tests/**\/*.py`), expanded against the
 * project's host tree when the study is created, so the study records the files themselves (reruns and
 * reports stay the same whatever the project becomes). A pattern matches files and symlinks (never followed,
 * a linked folder is captured as the link) and skips what snapshots always exclude (node_modules, .git, …:
 * exclusion-rules.ts). `*` and `?` stay inside one folder, `**` crosses folders, `[abc]` is a class.
 */

/** Entries a pattern may walk past before it is refused (a pattern over a huge tree is a mistake). */
const MAX_VISITED_ENTRIES = 200_000;
const GLOB_CHARS = /[*?[]/;

export interface PatternMatch {
  path: string;
  kind: CapturedFileKind;
  bytes: number;
}

/** A folder `test/` (or `test`) is `test/**`; the walk starts at the segments before the first glob character. */
function compilePattern(pattern: string): { base: string; regex: RegExp } {
  const trimmed = pattern.trim().replace(/\/$/, "");
  const glob = GLOB_CHARS.test(trimmed) ? trimmed : `${trimmed}/**`;
  const segments = glob.split("/");
  const base = segments
    .slice(
      0,
      segments.findIndex((segment) => GLOB_CHARS.test(segment)),
    )
    .join("/");
  const rule = compileRule(`/${fromText(glob)}`);
  return { base, regex: rule?.regex ?? /^$/ };
}

/** Whether every segment of `rel` is a real directory (no symlink on the way). */
async function isRealDirectory(root: string, rel: string): Promise<boolean> {
  let current = root;
  for (const segment of rel === "" ? [] : rel.split("/")) {
    current = path.join(current, segment);
    const stat = await fsp.lstat(current).catch(() => null);
    if (!stat?.isDirectory()) return false;
  }
  return true;
}

/** The files and symlinks under `root` that `pattern` names (at most `limit` of them listed, all counted), by path. */
export async function matchTestFilePattern(options: {
  root: string;
  pattern: string;
  limit: number;
}): Promise<{ matches: PatternMatch[]; total: number }> {
  const { root, pattern, limit } = options;
  // only inside the project (the study input refuses these; the form's search may send anything)
  if (pattern.startsWith("/") || pattern.split("/").some((segment) => segment === ".." || segment === "."))
    return { matches: [], total: 0 };
  const { base, regex } = compilePattern(pattern);
  const found: { path: string; kind: CapturedFileKind }[] = [];
  let total = 0;
  let visited = 0;
  const pending = (await isRealDirectory(root, base)) ? [base] : [];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const dirents = await fsp
      .readdir(path.join(root, dir), { withFileTypes: true, encoding: "buffer" })
      .catch(() => []);
    for (const dirent of dirents) {
      if (++visited > MAX_VISITED_ENTRIES)
        throw new AppError({
          code: "BAD_REQUEST",
          message: `${pattern} walks more than ${MAX_VISITED_ENTRIES.toLocaleString("en-US")} files and folders; start it in the folder that holds the tests, for example tests/unit/**.`,
        });
      if (!isUtf8(dirent.name)) continue; // a test file's path is text
      const name = dirent.name.toString("utf8");
      const rel = dir === "" ? name : `${dir}/${name}`;
      const isDir = dirent.isDirectory();
      if (alwaysExcludedRule(fromText(rel), isDir)) continue;
      if (isDir) pending.push(rel);
      const kind = dirent.isFile() ? "file" : dirent.isSymbolicLink() ? "symlink" : null;
      if (!kind || !regex.test(fromText(rel))) continue;
      total++;
      if (found.length < limit) found.push({ path: rel, kind });
    }
  }
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const matches: PatternMatch[] = [];
  for (const match of found) {
    const stat = await fsp.lstat(path.join(root, match.path)).catch(() => null);
    matches.push({ ...match, bytes: stat?.size ?? 0 });
  }
  return { matches, total };
}

type ExpandedFile = TestFileInput & { field: string; bytes: number };

function countText(count: number): string {
  return `${count.toLocaleString("en-US")} file${count === 1 ? "" : "s"}`;
}

/** Refuses a captured set over the limits, naming what each pattern matched and how to narrow it. */
function checkLimits(files: readonly ExpandedFile[], counted: readonly { pattern: string; total: number }[]): void {
  const patterns = counted.length
    ? ` (${counted.map((item) => `${item.pattern} matches ${countText(item.total)}`).join(", ")})`
    : "";
  const narrow =
    "Narrow the pattern to the tests the task is judged by (for example tests/unit/** or tests/**/*.py instead of tests/**), or list fewer folders.";
  if (files.length > MAX_TEST_FILES) {
    const more = counted.some((item) => item.total > MAX_TEST_FILES) ? " or more" : "";
    throw new AppError({
      code: "BAD_REQUEST",
      field: "testFiles",
      message: `The test files come to ${countText(files.length)}${more}${patterns}; a study captures at most ${MAX_TEST_FILES.toLocaleString("en-US")}. ${narrow}`,
    });
  }
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  if (bytes > MAX_TEST_FILES_TOTAL_BYTES)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "testFiles",
      message: `The ${countText(files.length)} of the test files${patterns} come to ${(bytes / 1024 / 1024).toFixed(1)} MiB; a study captures at most ${MAX_TEST_FILES_TOTAL_BYTES / 1024 / 1024} MiB. ${narrow}`,
    });
}

/**
 * The study's test files with every folder and pattern replaced by the paths it matches (sorted), each
 * path once: a file named on its own (or uploaded) keeps its role over a pattern that matches it too, and
 * matches at the JUnit path (cleared before every evaluation) are left out. Refused: a pattern that
 * matches nothing, and a set over the limits.
 */
export async function expandTestFiles(options: {
  projectRoot: string;
  files: readonly TestFileInput[];
  junitPath: string | null;
}): Promise<ExpandedFile[]> {
  const { projectRoot, junitPath } = options;
  const named = new Map<string, ExpandedFile>();
  const matched = new Map<string, ExpandedFile>();
  const counted: { pattern: string; total: number }[] = [];
  for (const [index, file] of options.files.entries()) {
    const field = `testFiles.${index}.path`;
    if (file.source === "upload") {
      named.set(file.path, { ...file, field, bytes: base64Bytes(file.contentBase64) });
      continue;
    }
    // a path that names a file as written is that file, glob characters or not (app/[id]/page.test.tsx)
    const stat = await fsp.lstat(path.join(projectRoot, file.path)).catch(() => null);
    const pattern = isTestFilePattern(file.path) ? !(stat && !stat.isDirectory()) : Boolean(stat?.isDirectory());
    if (!pattern) {
      named.set(file.path, { ...file, field, bytes: stat?.size ?? 0 });
      continue;
    }
    const { matches, total } = await matchTestFilePattern({
      root: projectRoot,
      pattern: file.path,
      limit: MAX_TEST_FILES + 1,
    });
    if (total === 0)
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${file.path} matches no file in the project (node_modules, .git and the other always-excluded folders are skipped). Check the path (the study form's search shows what a pattern matches).`,
      });
    counted.push({ pattern: file.path, total });
    for (const match of matches) {
      if (junitPath && (match.path === junitPath || match.path.startsWith(`${junitPath}/`))) continue;
      if (!matched.has(match.path))
        matched.set(match.path, { source: "project", path: match.path, role: file.role, field, bytes: match.bytes });
    }
  }
  const files = [...named.values(), ...[...matched.values()].filter((file) => !named.has(file.path))];
  checkLimits(files, counted);
  return files;
}
