import { quoteForPatch, type BytePath } from "../../../lib/files/byte-path";
import type { GitMode } from "../snapshots/manifest";
import { diffLines, splitLines } from "./line-diff";

/**
 * git-style unified patches for one file ("diff --git" header, mode lines, hunks with 3 lines of
 * context, "\ No newline at end of file"), readable by `git apply`. Binary content gets git's
 * "Binary files … differ" line instead of hunks.
 */
export interface PatchSide {
  mode: GitMode;
  /** File content, or a link's target bytes; null when the file was too big to load (see maxTextBytes). */
  content: Buffer | null;
}

export interface FilePatch {
  text: string;
  binary: boolean;
  insertions: number;
  deletions: number;
  truncated: boolean;
}

export const CONTEXT_LINES = 3;

/** git's test: a NUL byte in the first 8000 bytes makes content binary. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

interface Line {
  op: " " | "-" | "+";
  text: string;
  /** Lines of a and of b before this one. */
  a: number;
  b: number;
}

function flatten(a: string[], b: string[]): Line[] {
  const lines: Line[] = [];
  for (const edit of diffLines(a, b)) {
    for (let i = 0; i < edit.length; i++) {
      if (edit.op === "equal")
        lines.push({ op: " ", text: a[edit.aStart + i] ?? "", a: edit.aStart + i, b: edit.bStart + i });
      else if (edit.op === "delete")
        lines.push({ op: "-", text: a[edit.aStart + i] ?? "", a: edit.aStart + i, b: edit.bStart });
      else lines.push({ op: "+", text: b[edit.bStart + i] ?? "", a: edit.aStart, b: edit.bStart + i });
    }
  }
  return lines;
}

function range(start: number, count: number): string {
  // an empty range names the line before it; a one-line range drops ",1"
  if (count === 0) return `${start},0`;
  return count === 1 ? `${start + 1}` : `${start + 1},${count}`;
}

function renderLine(line: Line): string {
  return line.text.endsWith("\n") ? `${line.op}${line.text}` : `${line.op}${line.text}\n\\ No newline at end of file\n`;
}

/** Hunks for a → b; stops adding hunks past maxBytes and says so. */
function hunks(
  aText: string,
  bText: string,
  maxBytes: number,
): { text: string; insertions: number; deletions: number; truncated: boolean } {
  const lines = flatten(splitLines(aText), splitLines(bText));
  const changes: number[] = [];
  lines.forEach((line, index) => {
    if (line.op !== " ") changes.push(index);
  });
  const insertions = lines.filter((line) => line.op === "+").length;
  const deletions = changes.length - insertions;
  let text = "";
  let truncated = false;
  let i = 0;
  while (i < changes.length) {
    let j = i;
    while (j + 1 < changes.length && (changes[j + 1] ?? 0) - (changes[j] ?? 0) - 1 <= 2 * CONTEXT_LINES) j++;
    const start = Math.max(0, (changes[i] ?? 0) - CONTEXT_LINES);
    const end = Math.min(lines.length, (changes[j] ?? 0) + CONTEXT_LINES + 1);
    const slice = lines.slice(start, end);
    const first = slice[0] as Line;
    const aCount = slice.filter((line) => line.op !== "+").length;
    const bCount = slice.filter((line) => line.op !== "-").length;
    let body = `@@ -${range(first.a, aCount)} +${range(first.b, bCount)} @@\n`;
    // within a run of changes, deletions first, then insertions (as git prints them)
    for (let k = 0; k < slice.length;) {
      if ((slice[k] as Line).op === " ") {
        body += renderLine(slice[k] as Line);
        k++;
        continue;
      }
      let runEnd = k;
      while (runEnd < slice.length && (slice[runEnd] as Line).op !== " ") runEnd++;
      const run = slice.slice(k, runEnd);
      for (const line of run) if (line.op === "-") body += renderLine(line);
      for (const line of run) if (line.op === "+") body += renderLine(line);
      k = runEnd;
    }
    if (text.length + body.length > maxBytes && text.length > 0) {
      const hidden = changes.length - i;
      text += `[diff truncated: ${hidden.toLocaleString("en-US")} more changed line(s) not shown]\n`;
      truncated = true;
      break;
    }
    text += body;
    i = j + 1;
  }
  if (!truncated && text.length > maxBytes) {
    text = `${text.slice(0, maxBytes)}\n[diff truncated: the rest of this hunk is not shown]\n`;
    truncated = true;
  }
  return { text, insertions, deletions, truncated };
}

export interface PatchOptions {
  path: BytePath;
  before: PatchSide | null;
  after: PatchSide | null;
  /** Cap on the patch text of this file. */
  maxBytes: number;
  /** Content above this size gets no text diff. */
  maxTextBytes: number;
}

/** The patch for one changed path. A change between a file and a symlink is a deletion plus an addition, as in git. */
export function formatFilePatch(options: PatchOptions): FilePatch {
  const { before, after } = options;
  const typeChanged = before && after && (before.mode === "120000") !== (after.mode === "120000");
  if (typeChanged) {
    const removed = formatFilePatch({ ...options, after: null });
    const added = formatFilePatch({ ...options, before: null });
    return {
      text: removed.text + added.text,
      binary: removed.binary || added.binary,
      insertions: added.insertions,
      deletions: removed.deletions,
      truncated: removed.truncated || added.truncated,
    };
  }
  const a = quoteForPatch(`a/${options.path}`);
  const b = quoteForPatch(`b/${options.path}`);
  let header = `diff --git ${a} ${b}\n`;
  if (!before && after) header += `new file mode ${after.mode}\n`;
  else if (before && !after) header += `deleted file mode ${before.mode}\n`;
  else if (before && after && before.mode !== after.mode) header += `old mode ${before.mode}\nnew mode ${after.mode}\n`;
  if ((before && !before.content) || (after && !after.content)) {
    return {
      text: `${header}[diff truncated: the file is larger than ${options.maxTextBytes.toLocaleString("en-US")} bytes; no text diff is shown]\n`,
      binary: false,
      insertions: 0,
      deletions: 0,
      truncated: true,
    };
  }
  const oldContent = before?.content ?? Buffer.alloc(0);
  const newContent = after?.content ?? Buffer.alloc(0);
  if (before && after && oldContent.equals(newContent))
    return { text: header, binary: false, insertions: 0, deletions: 0, truncated: false };
  if (oldContent.length === 0 && newContent.length === 0)
    return { text: header, binary: false, insertions: 0, deletions: 0, truncated: false };
  const from = before ? a : "/dev/null";
  const to = after ? b : "/dev/null";
  if (isBinary(oldContent) || isBinary(newContent))
    return {
      text: `${header}Binary files ${from} and ${to} differ\n`,
      binary: true,
      insertions: 0,
      deletions: 0,
      truncated: false,
    };
  if (oldContent.length > options.maxTextBytes || newContent.length > options.maxTextBytes) {
    return {
      text: `${header}[diff truncated: the file is larger than ${options.maxTextBytes.toLocaleString("en-US")} bytes; no text diff is shown]\n`,
      binary: false,
      insertions: 0,
      deletions: 0,
      truncated: true,
    };
  }
  const body = hunks(oldContent.toString("utf8"), newContent.toString("utf8"), options.maxBytes);
  return {
    text: `${header}--- ${from}\n+++ ${to}\n${body.text}`,
    binary: false,
    insertions: body.insertions,
    deletions: body.deletions,
    truncated: body.truncated,
  };
}
