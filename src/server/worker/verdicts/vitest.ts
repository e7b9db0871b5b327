/**
 * Vitest's default and verbose reporters: the summary `Tests  3 failed | 20 passed | 1 skipped (24)`
 * (or `Tests  no tests` when every file failed to load), rows `✓ name 2ms`, `× name 6ms`, `↓ name`
 * (skipped), `□ name` (todo). The default reporter prints leaf names (with a file's rows only when
 * it failed); `--reporter=verbose` prints `file > suite > test` and the error after `→`.
 * TODO counts as skipped.
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { clipMessage, type Counts, type FormatResult, type TestCaseResult, type TestStatus } from "./verdict";

const SUMMARY = /^Tests {2,}(.+)$/;
const MARKERS: Record<string, TestStatus> = {
  "✓": "passed",
  "√": "passed",
  "×": "failed",
  "✗": "failed",
  "↓": "skipped",
  "□": "skipped",
};
/** A file's line, `✓ math.test.js (8 tests | 1 skipped) 3ms`: not a test. */
const FILE_LINE = /\(\d+ tests?(?: \||\))/;

/** `2 failed | 5 passed | 1 skipped (8)` → counts; null when it is not a Vitest summary. */
function parseSummary(text: string): Counts | null {
  if (text === "no tests") return { passed: 0, failed: 0, skipped: 0 };
  const body = text.replace(/ \(\d+\)$/, "");
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  let known = 0;
  for (const part of body.split("|")) {
    const item = /^(\d+) ([a-z ]+)$/.exec(part.trim());
    if (!item) return null;
    const value = parseCount(item[1]!) ?? 0;
    const label = item[2]!;
    if (label === "passed") counts.passed += value;
    else if (label === "failed") counts.failed += value;
    else if (label === "skipped" || label === "todo") counts.skipped += value;
    else continue;
    known++;
  }
  return known > 0 ? counts : null;
}

/** `name 12ms` → name and 12; a name without a trailing duration is returned whole. */
function splitTrailingMs(text: string): { name: string; durationMs: number | null } {
  if (!text.endsWith("ms")) return { name: text, durationMs: null };
  let start = text.length - 2;
  while (start > 0 && text.charCodeAt(start - 1) >= 0x30 && text.charCodeAt(start - 1) <= 0x39) start--;
  if (start === text.length - 2 || start < 2 || text[start - 1] !== " ") return { name: text, durationMs: null };
  return { name: text.slice(0, start - 1), durationMs: Number(text.slice(start, text.length - 2)) };
}

export function parseVitest(options: { lines: readonly string[] }): FormatResult | null {
  const segments = new RunSegments<Counts>();
  let message: { row: TestCaseResult; lines: string[] } | null = null;
  const finishMessage = () => {
    if (message && message.lines.length > 0) message.row.message = clipMessage(message.lines.join("\n"));
    message = null;
  };

  for (const line of options.lines) {
    const text = line.slice(indentOf(line)).trimEnd();
    const marker = text.slice(0, 1);
    const status = MARKERS[marker];
    const isRow = status !== undefined && text[1] === " " && !FILE_LINE.test(text);

    if (message) {
      if (message.lines.length === 0 && text.startsWith("→ ")) {
        message.lines.push(text.slice(2));
        continue;
      }
      if (message.lines.length > 0 && text !== "" && !isRow) {
        message.lines.push(line.trimEnd());
        continue;
      }
      finishMessage();
    }

    const summary = SUMMARY.exec(text);
    if (summary) {
      const counts = parseSummary(summary[1]!.trim());
      if (counts) segments.setSummary(counts);
      continue;
    }
    if (!isRow || status === undefined) continue;
    const { name, durationMs } = splitTrailingMs(text.slice(2).trim());
    const row: TestCaseResult = { name, status, durationMs, message: null };
    segments.addRow(row);
    if (status === "failed") message = { row, lines: [] };
  }
  finishMessage();

  const found = segments.result({ requireSummary: true });
  if (!found?.summary) return null;
  return { source: "vitest", counts: found.summary, tests: found.rows };
}
