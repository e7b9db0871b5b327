import { AppError } from "../../core/errors/app-error";
import { bytesOf, displayPath, fromBytes, unsafePathReason, type BytePath } from "../../../lib/files/byte-path";
import type { FileChange, FileState } from "../../core/diffs/workspace-diff";
import type { ReviewChangeKind, ReviewFileItem, ReviewFileState, ReviewPath } from "../../../shared/review-schemas";

/** The key a path travels under: base64url of its raw bytes (stable, URL-safe, exact for any name). */
export function pathKeyOf(path: BytePath): string {
  return bytesOf(path).toString("base64url");
}

/** The byte path of a key, refused when it could leave the tree. */
export function pathOfKey(pathKey: string): BytePath {
  const path = fromBytes(Buffer.from(pathKey, "base64url"));
  const unsafe = unsafePathReason(path);
  if (unsafe)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "pathKey",
      message: `This path key does not name a file: ${unsafe}.`,
    });
  return path;
}

export function reviewPath(path: BytePath): ReviewPath {
  return { path: displayPath(path), pathKey: pathKeyOf(path) };
}

/**
 * One word for what happened to a path, most telling first: a file ↔ symlink change, a symlink, binary
 * content, an addition or deletion, a change of the executable bit alone, else a modification.
 */
export function kindOf(change: FileChange): ReviewChangeKind {
  if (change.typeChanged) return "type-change";
  if (change.before?.type === "symlink" || change.after?.type === "symlink") return "symlink";
  if (change.binary) return "binary";
  if (change.status !== "modified") return change.status;
  return change.modeChanged && !change.contentChanged ? "mode" : "modified";
}

function stateView(state: FileState | null): ReviewFileState | null {
  return state ? { type: state.type, size: state.size, sha256: state.sha256, mode: state.mode } : null;
}

/** False when the diff has no line counts for the change: a side over the text limit, or read while it changed. */
export function linesCounted(change: FileChange): boolean {
  // the review's diff cuts patch text at a small size, but counts lines in full; only a refusal leaves them at zero
  return !change.patchTruncated || change.insertions + change.deletions > 0;
}

export function fileItem(change: FileChange): ReviewFileItem {
  return {
    ...reviewPath(change.path),
    kind: kindOf(change),
    status: change.status,
    binary: change.binary,
    modeChanged: change.modeChanged,
    insertions: change.insertions,
    deletions: change.deletions,
    linesCounted: linesCounted(change),
    before: stateView(change.before),
    after: stateView(change.after),
  };
}

const LANGUAGES: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  json: "json",
  jsonc: "json",
  md: "markdown",
  markdown: "markdown",
  py: "python",
  pyi: "python",
  css: "css",
  scss: "scss",
  less: "less",
  html: "html",
  htm: "html",
  vue: "html",
  xml: "xml",
  svg: "xml",
  yml: "yaml",
  yaml: "yaml",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  go: "go",
  rs: "rust",
  java: "java",
  kt: "kotlin",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  swift: "swift",
  sql: "sql",
  toml: "ini",
  ini: "ini",
  lua: "lua",
  r: "r",
  dockerfile: "dockerfile",
};

const NAMES: Record<string, string> = {
  dockerfile: "dockerfile",
  makefile: "makefile",
  ".bashrc": "shell",
  ".profile": "shell",
  ".gitignore": "plaintext",
};

/** The Monaco language id for a file name (plaintext when unknown). */
export function languageOf(path: BytePath): string {
  const name = displayPath(path)
    .slice(path.lastIndexOf("/") + 1)
    .toLowerCase();
  const byName = NAMES[name];
  if (byName) return byName;
  const dot = name.lastIndexOf(".");
  return (dot > 0 ? LANGUAGES[name.slice(dot + 1)] : undefined) ?? "plaintext";
}
