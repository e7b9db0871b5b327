/**
 * Mocha's spec reporter (the default): rows `✔ name`, `✔ name (45ms)` (slow tests only show a
 * duration), `1) name` (failed), `- name` (pending) under indented describe titles, then the
 * summary `20 passing (1s)`, `1 pending`, `3 failing`, then the numbered failure details.
 * Pending counts as skipped.
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { clipMessage, type FormatResult, type TestCaseResult } from "./verdict";

interface MochaSummary {
  passing: number;
  pending?: number;
  failing?: number;
}

const PASSING = /^(\d+) passing(?: \([^)]*\))?$/;
const PENDING_OR_FAILING = /^(\d+) (pending|failing)$/;
const FAILED_ROW = /^(\d+)\) (.+)$/;

/** `name (45ms)` → name and 45. */
function splitDuration(text: string): { name: string; durationMs: number | null } {
  const match = / \((\d+)ms\)$/.exec(text);
  return match ? { name: text.slice(0, match.index), durationMs: Number(match[1]) } : { name: text, durationMs: null };
}

export function parseMocha(options: { lines: readonly string[] }): FormatResult | null {
  const segments = new RunSegments<MochaSummary>();
  /** failed rows of the current run by their number, for the details printed after the summary */
  let numbered = new Map<string, TestCaseResult>();
  let titles: { indent: number; name: string }[] = [];
  let detail: { row: TestCaseResult | undefined; titleDone: boolean; lines: string[]; done: boolean } | null = null;

  const finishDetail = () => {
    if (detail?.row) detail.row.message = clipMessage(stripCommonIndent(detail.lines).join("\n"));
    detail = null;
  };

  for (const line of options.lines) {
    const indent = indentOf(line);
    const text = line.slice(indent).trimEnd();

    const passing = PASSING.exec(text);
    if (passing) {
      finishDetail();
      segments.setSummary({ passing: parseCount(passing[1]!) ?? 0 });
      continue;
    }
    const current = segments.currentSummary();
    const more = PENDING_OR_FAILING.exec(text);
    if (more && current) {
      const key = more[2] as "pending" | "failing";
      if (current[key] === undefined) segments.setSummary({ ...current, [key]: parseCount(more[1]!) ?? 0 });
      continue;
    }
    const failed = FAILED_ROW.exec(text);

    if (current) {
      // after the summary: the failure details, "  1) suite" / "       test:" / message / stack
      if (failed) {
        finishDetail();
        detail = { row: numbered.get(failed[1]!), titleDone: failed[2]!.endsWith(":"), lines: [], done: false };
        continue;
      }
      if (detail && !detail.done) {
        if (!detail.titleDone) detail.titleDone = text.endsWith(":");
        else if (text.startsWith("at ")) detail.done = true;
        else detail.lines.push(line);
        continue;
      }
      if (!text.startsWith("✔ ") && !text.startsWith("✓ ") && !(text.startsWith("- ") && indent >= 2)) continue;
      // a row after the summary: a new run starts
      finishDetail();
      numbered = new Map();
      titles = [];
    }

    if (text === "" || indent < 2) continue;
    while (titles.length > 0 && titles[titles.length - 1]!.indent >= indent) titles.pop();
    const path = titles.map((title) => title.name);
    let row: TestCaseResult | null = null;
    if (text.startsWith("✔ ") || text.startsWith("✓ ")) {
      const { name, durationMs } = splitDuration(text.slice(2));
      row = { name: [...path, name].join(" > "), status: "passed", durationMs, message: null };
    } else if (failed) {
      row = { name: [...path, failed[2]!].join(" > "), status: "failed", durationMs: null, message: null };
      numbered.set(failed[1]!, row);
    } else if (text.startsWith("- ")) {
      row = { name: [...path, text.slice(2)].join(" > "), status: "skipped", durationMs: null, message: null };
    }
    if (row) segments.addRow(row);
    else titles.push({ indent, name: text });
  }
  finishDetail();

  const found = segments.result({ requireSummary: true });
  if (!found?.summary) return null;
  const { passing, pending = 0, failing = 0 } = found.summary;
  return { source: "mocha", counts: { passed: passing, failed: failing, skipped: pending }, tests: found.rows };
}

function stripCommonIndent(lines: readonly string[]): string[] {
  let common = Infinity;
  for (const line of lines) if (line.trim() !== "") common = Math.min(common, indentOf(line));
  return lines.map((line) => line.slice(Number.isFinite(common) ? common : 0).trimEnd());
}
