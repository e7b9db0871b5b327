/**
 * Jest's default reporter: the summary `Tests:       1 failed, 1 skipped, 22 passed, 24 total`; with
 * `--verbose` (the default for a single test file) rows under each `PASS file` / `FAIL file` line:
 * `✓ name (3 ms)`, `✕ name (2 ms)`, `○ skipped name`, `✎ todo name`, grouped under describe
 * names by indentation. Failure messages come from the `● describe › name` blocks.
 * TODO counts as skipped.
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { clipMessage, type Counts, type FormatResult, type TestCaseResult, type TestStatus } from "./verdict";

const SUMMARY = /^Tests:\s+(.+)$/;
const MARKERS: Record<string, TestStatus> = {
  "✓": "passed",
  "√": "passed",
  "✕": "failed",
  "×": "failed",
  "○": "skipped",
  "✎": "skipped",
};
const FILE_HEADER = /^(PASS|FAIL)\s+\S/;
/** A code frame line (`  4 |` or `> 4 |`) or a stack line ends a failure message. */
const MESSAGE_END = /^(>\s*)?\d+\s\||^at\s/;

function parseSummary(text: string): Counts | null {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  let known = 0;
  for (const part of text.split(",")) {
    const item = /^(\d+) ([a-z]+)$/.exec(part.trim());
    if (!item) return null;
    const value = parseCount(item[1]!) ?? 0;
    const label = item[2]!;
    if (label === "passed") counts.passed += value;
    else if (label === "failed") counts.failed += value;
    else if (label === "skipped" || label === "todo" || label === "pending") counts.skipped += value;
    else if (label !== "total") continue;
    known++;
  }
  return known > 0 ? counts : null;
}

/** `name (12 ms)` → name and 12. */
function splitDuration(text: string): { name: string; durationMs: number | null } {
  const match = / \((\d+(?:\.\d+)?) ?(ms|s)\)$/.exec(text);
  if (!match) return { name: text, durationMs: null };
  const value = Number(match[1]);
  return { name: text.slice(0, match.index), durationMs: match[2] === "s" ? value * 1000 : value };
}

export function parseJest(options: { lines: readonly string[] }): FormatResult | null {
  const segments = new RunSegments<Counts>();
  const messages = new Map<string, string>();
  let inFileBlock = false;
  let groups: { indent: number; name: string }[] = [];
  let failure: { key: string; lines: string[]; done: boolean } | null = null;

  const finishFailure = () => {
    if (failure && !messages.has(failure.key)) {
      const text = clipMessage(failure.lines.join("\n"));
      if (text) messages.set(failure.key, text);
    }
    failure = null;
  };

  for (const line of options.lines) {
    const indent = indentOf(line);
    const text = line.slice(indent).trimEnd();

    if (FILE_HEADER.test(text) && indent <= 1) {
      finishFailure();
      inFileBlock = true;
      groups = [];
      continue;
    }
    const summary = SUMMARY.exec(text);
    if (summary && indent === 0) {
      finishFailure();
      const counts = parseSummary(summary[1]!);
      if (counts) segments.setSummary(counts);
      inFileBlock = false;
      continue;
    }
    if (text.startsWith("● ")) {
      finishFailure();
      inFileBlock = false;
      failure = { key: text.slice(2).split(" › ").join(" > "), lines: [], done: false };
      continue;
    }
    if (failure) {
      if (failure.done) continue;
      if (MESSAGE_END.test(text)) failure.done = true;
      else failure.lines.push(text === "" ? "" : line.slice(Math.min(indent, 4)));
      continue;
    }
    if (!inFileBlock) continue;
    if (text === "") {
      inFileBlock = false;
      continue;
    }
    while (groups.length > 0 && groups[groups.length - 1]!.indent >= indent) groups.pop();
    const status = MARKERS[text.slice(0, 1)];
    if (status === undefined || text[1] !== " ") {
      groups.push({ indent, name: text });
      continue;
    }
    let rest = text.slice(2);
    if (text.startsWith("○ skipped ")) rest = rest.slice("skipped ".length);
    else if (text.startsWith("✎ todo ")) rest = rest.slice("todo ".length);
    const { name, durationMs } = splitDuration(rest);
    segments.addRow({
      name: [...groups.map((group) => group.name), name].join(" > "),
      status,
      durationMs,
      message: null,
    });
  }
  finishFailure();

  const found = segments.result({ requireSummary: true });
  if (!found?.summary) return null;
  const tests: TestCaseResult[] = found.rows.map((row) =>
    row.status === "failed" ? { ...row, message: messages.get(row.name) ?? null } : row,
  );
  return { source: "jest", counts: found.summary, tests };
}
