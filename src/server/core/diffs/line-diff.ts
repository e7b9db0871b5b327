/**
 * Line diff (Myers, "An O(ND) Difference Algorithm", 1986) after trimming the common prefix and
 * suffix. Lines are compared as whole strings including their "\n", so a last line without a
 * newline differs from the same line with one, as in git. When the edit distance passes `maxEdits`
 * the middle is reported as one replacement: still a correct diff, just not a minimal one.
 */
export type EditOp = "equal" | "delete" | "insert";

/** A run of lines: `equal` and `delete` count from `aStart` in a, `equal` and `insert` from `bStart` in b. */
export interface Edit {
  op: EditOp;
  aStart: number;
  bStart: number;
  length: number;
}

/** Splits text into lines that keep their "\n"; the last one may lack it. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    if (end < 0) break;
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function push(edits: Edit[], op: EditOp, aStart: number, bStart: number, length: number): void {
  if (length === 0) return;
  const last = edits[edits.length - 1];
  if (
    last &&
    last.op === op &&
    last.aStart + (op === "insert" ? 0 : last.length) === aStart &&
    last.bStart + (op === "delete" ? 0 : last.length) === bStart
  ) {
    last.length += length;
    return;
  }
  edits.push({ op, aStart, bStart, length });
}

/** Myers' greedy forward search over integer-coded lines; returns the edit script for a[0..n) → b[0..m), or null past maxEdits. */
function myers(a: Int32Array, b: Int32Array, maxEdits: number): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  outer: for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))
          ? (v[offset + k + 1] ?? 0)
          : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d - 1, offset + d + 2));
        found = d;
        break outer;
      }
    }
    trace.push(v.slice(offset - d - 1, offset + d + 2)); // entries k = -d-1 .. d+1
  }
  if (found < 0) return null;

  // walk back through the saved frontiers
  const reversed: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const frame = trace[d - 1] as Int32Array; // frontier after step d-1, indexed k + d
    const at = (k: number) => frame[k + d] ?? 0;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const startX = down ? prevX : prevX + 1;
    const startY = startX - k;
    if (x > startX) reversed.push({ op: "equal", aStart: startX, bStart: startY, length: x - startX });
    if (down) reversed.push({ op: "insert", aStart: prevX, bStart: prevY, length: 1 });
    else reversed.push({ op: "delete", aStart: prevX, bStart: prevY, length: 1 });
    x = prevX;
    y = prevY;
  }
  if (x > 0) reversed.push({ op: "equal", aStart: 0, bStart: 0, length: x });
  const edits: Edit[] = [];
  for (let i = reversed.length - 1; i >= 0; i--) {
    const edit = reversed[i] as Edit;
    push(edits, edit.op, edit.aStart, edit.bStart, edit.length);
  }
  return edits;
}

export function diffLines(a: readonly string[], b: readonly string[], options: { maxEdits?: number } = {}): Edit[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  const aMid = a.slice(prefix, a.length - suffix);
  const bMid = b.slice(prefix, b.length - suffix);

  // code lines as integers so the inner loop compares numbers
  const codes = new Map<string, number>();
  const encode = (lines: readonly string[]) =>
    Int32Array.from(lines, (line) => codes.get(line) ?? (codes.set(line, codes.size), codes.size - 1));
  const middle = myers(encode(aMid), encode(bMid), options.maxEdits ?? 2000) ?? [
    { op: "delete" as const, aStart: 0, bStart: 0, length: aMid.length },
    { op: "insert" as const, aStart: aMid.length, bStart: 0, length: bMid.length },
  ];

  const edits: Edit[] = [];
  push(edits, "equal", 0, 0, prefix);
  for (const edit of middle) push(edits, edit.op, edit.aStart + prefix, edit.bStart + prefix, edit.length);
  push(edits, "equal", a.length - suffix, b.length - suffix, suffix);
  return edits;
}
