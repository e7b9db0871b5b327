/**
 * node:test's spec reporter (Node 18–22; the default on a terminal, `--test-reporter=spec` in a pipe):
 * rows `✔ name (1.2ms)`, `✖ name (1.2ms)`, `﹣ name (1.2ms) # reason`, `▶ suite` headers, and the
 * summary `ℹ tests 23`, `ℹ pass 20`, `ℹ fail 3`, `ℹ cancelled 0`, `ℹ skipped 0`, `ℹ todo 0`.
 *
 * Counts come from the summary (Node's rule: every test, parents with subtests included, suites
 * not; TODO counts as skipped, cancelled as failed). The reporter prints a parent's result like a
 * suite's, so rows are the leaf tests only. The "✖ failing tests:" recap after the summary is not
 * read as more rows.
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { clipMessage, type FormatResult, type TestCaseResult } from "./verdict";

interface SpecSummary {
  pass?: number;
  fail?: number;
  cancelled?: number;
  skipped?: number;
  todo?: number;
}

const SUMMARY_KEYS = new Set(["pass", "fail", "cancelled", "skipped", "todo"]);
const SUMMARY_LINE = /^ℹ ([a-z_]+) (\d+(?:\.\d+)?)$/;
const MARKERS = new Set(["✔", "✖", "﹣", "▶"]);

/** Splits `name (1.23ms) # comment` at its last ` (<number>ms)`. */
export function splitDuration(text: string): { name: string; durationMs: number | null; comment: string | null } {
  let at = text.lastIndexOf("ms)");
  while (at >= 0) {
    let start = at;
    while (start > 0 && /[\d.]/.test(text[start - 1]!)) start--;
    if (start < at && start >= 2 && text[start - 1] === "(" && text[start - 2] === " ") {
      const durationMs = Number.parseFloat(text.slice(start, at));
      const rest = text.slice(at + 3);
      if (Number.isFinite(durationMs) && (rest === "" || rest.startsWith(" # "))) {
        return { name: text.slice(0, start - 2), durationMs, comment: rest === "" ? null : rest.slice(3).trim() };
      }
    }
    at = at === 0 ? -1 : text.lastIndexOf("ms)", at - 1);
  }
  return { name: text, durationMs: null, comment: null };
}

export function parseNodeSpec(options: { lines: readonly string[] }): FormatResult | null {
  const segments = new RunSegments<SpecSummary>();
  const headers: { indent: number; name: string }[] = [];
  let message: { row: TestCaseResult; indent: number; lines: string[] } | null = null;

  const finishMessage = () => {
    if (message) message.row.message = clipMessage(message.lines.join("\n"));
    message = null;
  };

  for (const line of options.lines) {
    const indent = indentOf(line);
    const text = line.slice(indent).trimEnd();
    const marker = text.slice(0, 1);

    if (message) {
      const isRow = MARKERS.has(marker) && text[1] === " ";
      if (!isRow && (text === "" || indent > message.indent) && !text.startsWith("at ") && !text.startsWith("ℹ ")) {
        message.lines.push(line.slice(Math.min(indent, message.indent + 2)).trimEnd());
        continue;
      }
      finishMessage();
    }

    const summary = text.startsWith("ℹ ") ? SUMMARY_LINE.exec(text) : null;
    if (summary) {
      const key = summary[1]!;
      if (!SUMMARY_KEYS.has(key)) continue;
      const value = parseCount(summary[2]!) ?? 0;
      const current = segments.currentSummary();
      const field = key as keyof SpecSummary;
      segments.setSummary(
        current && current[field] === undefined ? { ...current, [field]: value } : { [field]: value },
      );
      continue;
    }

    if (!MARKERS.has(marker) || text[1] !== " ") continue;
    const { name, durationMs, comment } = splitDuration(text.slice(2));
    while (headers.length > 0 && headers[headers.length - 1]!.indent > indent) headers.pop();
    const top = headers[headers.length - 1];
    if (marker === "▶" && durationMs === null) {
      if (top && top.indent === indent) headers.pop();
      headers.push({ indent, name });
      continue;
    }
    if (top && top.indent === indent && top.name === name) {
      headers.pop(); // a suite's or parent test's own result line
      continue;
    }
    if (marker === "▶") continue;
    const status = marker === "﹣" || comment !== null ? "skipped" : marker === "✔" ? "passed" : "failed";
    const reason = comment !== null && !/^(todo|skip)$/i.test(comment) ? comment : null;
    const fullName = headers.length === 0 ? name : `${headers.map((header) => header.name).join(" > ")} > ${name}`;
    const row: TestCaseResult = { name: fullName, status, durationMs, message: status === "skipped" ? reason : null };
    segments.addRow(row);
    if (status === "failed") message = { row, indent, lines: [] };
  }
  finishMessage();

  const found = segments.result({ requireSummary: true });
  const summary = found?.summary;
  if (!found || !summary || (summary.pass === undefined && summary.fail === undefined)) return null;
  return {
    source: "node-test",
    counts: {
      passed: summary.pass ?? 0,
      failed: (summary.fail ?? 0) + (summary.cancelled ?? 0),
      skipped: (summary.skipped ?? 0) + (summary.todo ?? 0),
    },
    tests: found.rows,
  };
}
