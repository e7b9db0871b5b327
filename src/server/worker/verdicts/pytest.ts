/**
 * pytest: the final line `=== 3 failed, 20 passed, 1 skipped in 0.12s ===` (without the `=` rule
 * under `-q`; `no tests ran in 0.01s` when nothing ran). Errors count as failed, xfailed as skipped,
 * xpassed as passed; warnings, deselected and reruns are not tests.
 * Rows from `-v` lines (`path::test PASSED [ 12%]`) or, without them, from the short test summary
 * (`-rA`: `PASSED path::test`, `FAILED path::test - message`, `SKIPPED [1] path:33: reason`; by
 * default pytest lists only the failures there, so the rows are only the failures).
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { clipMessage, type Counts, type FormatResult, type TestCaseResult, type TestStatus } from "./verdict";

const OUTCOMES: Record<string, TestStatus> = {
  PASSED: "passed",
  XPASS: "passed",
  FAILED: "failed",
  ERROR: "failed",
  SKIPPED: "skipped",
  XFAIL: "skipped",
};
const COUNT_LABELS: Record<string, keyof Counts | null> = {
  passed: "passed",
  xpassed: "passed",
  failed: "failed",
  error: "failed",
  errors: "failed",
  skipped: "skipped",
  xfailed: "skipped",
  warning: null,
  warnings: null,
  deselected: null,
  rerun: null,
  reruns: null,
};
/** ` in 0.12s` or ` in 61.20s (0:01:01)` at the end of the summary. */
const DURATION_TAIL = / in \d+(?:\.\d+)?s(?: \([\d:]+\))?$/;
const VERBOSE_ROW = / (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \((.*)\))?\s+\[\s*\d+%\]$/;
const SHORT_ROW = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.+)$/;

/** The counts of a pytest summary line, or null. */
export function parsePytestSummary(line: string): Counts | null {
  let text = line.trim();
  if (text.startsWith("=")) text = text.replace(/^=+ /, "").replace(/ =+$/, "");
  const tail = DURATION_TAIL.exec(text);
  if (!tail) return null;
  const body = text.slice(0, tail.index);
  if (body === "no tests ran") return { passed: 0, failed: 0, skipped: 0 };
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  let known = 0;
  for (const part of body.split(", ")) {
    const item = /^(\d+) ([a-z]+)$/.exec(part);
    if (!item) return null;
    const label = COUNT_LABELS[item[2]!];
    if (label === undefined) return null;
    if (label !== null) counts[label] += parseCount(item[1]!) ?? 0;
    known++;
  }
  return known > 0 ? counts : null;
}

export function parsePytest(options: { lines: readonly string[] }): FormatResult | null {
  const segments = new RunSegments<{ counts: Counts; verbose: TestCaseResult[]; short: TestCaseResult[] }>();
  let verbose: TestCaseResult[] = [];
  let short: TestCaseResult[] = [];
  let inShortSummary = false;

  for (const line of options.lines) {
    const text = line.trimEnd();
    if (text.startsWith("=") || (indentOf(line) === 0 && DURATION_TAIL.test(text))) {
      const counts = parsePytestSummary(text);
      if (counts) {
        segments.setSummary({ counts, verbose, short });
        verbose = [];
        short = [];
        inShortSummary = false;
        continue;
      }
      if (text.startsWith("=")) inShortSummary = text.includes(" short test summary info ");
      continue;
    }
    if (inShortSummary) {
      const row = SHORT_ROW.exec(text);
      if (row) short.push(shortRow(OUTCOMES[row[1]!]!, row[2]!));
      continue;
    }
    const row = text.endsWith("%]") && text.includes("::") ? VERBOSE_ROW.exec(text) : null;
    if (row) {
      const status = OUTCOMES[row[1]!]!;
      const reason = row[2] ?? null;
      verbose.push({
        name: text.slice(0, row.index),
        status,
        durationMs: null,
        message: status === "passed" ? null : clipMessage(reason),
      });
    }
  }

  const found = segments.result({ requireSummary: true });
  if (!found?.summary) return null;
  const summary = found.summary;
  let tests = summary.verbose.length > 0 ? summary.verbose : summary.short;
  if (summary.verbose.length > 0 && summary.short.length > 0) {
    // -v with -r: the verbose rows, with the failure messages from the short summary
    const messages = new Map(
      summary.short.filter((row) => row.status === "failed").map((row) => [row.name, row.message]),
    );
    tests = summary.verbose.map((row) =>
      row.status === "failed" && messages.get(row.name) ? { ...row, message: messages.get(row.name) ?? null } : row,
    );
  }
  return { source: "pytest", counts: summary.counts, tests };
}

/** `path::test - message`, or for SKIPPED `[1] path:33: reason`. */
function shortRow(status: TestStatus, rest: string): TestCaseResult {
  if (status === "skipped" && rest.startsWith("[")) {
    const location = /^\[\d+\] (\S+?:\d+): ?(.*)$/.exec(rest);
    if (location) return { name: location[1]!, status, durationMs: null, message: clipMessage(location[2]) };
  }
  const separator = rest.indexOf(" - ", Math.max(0, rest.lastIndexOf("::")));
  if (separator < 0) return { name: rest, status, durationMs: null, message: null };
  return {
    name: rest.slice(0, separator),
    status,
    durationMs: null,
    message: status === "passed" ? null : clipMessage(rest.slice(separator + 3)),
  };
}
