/**
 * `cargo test` (libtest's default output): per test binary `running 7 tests`, rows
 * `test tests::adds ... ok`, `… FAILED`, `… ignored` / `… ignored, reason`, the failures'
 * `---- tests::adds stdout ----` blocks, and `test result: FAILED. 4 passed; 2 failed; 1 ignored;
 * 0 measured; 0 filtered out; finished in 0.02s`. Cargo runs one binary after another (unit tests,
 * each `tests/*.rs`, doc-tests) and stops after the first that fails unless `--no-fail-fast`: the
 * counts add up every `test result:` line; ignored counts as skipped, measured (benchmarks) and
 * filtered out are not tests. Rows of a binary that printed no result line (it crashed) are left out.
 *
 * Rows are named after the binary's source as cargo's `Running` line gives it (on stderr: capture
 * `2>&1`): `src/lib.rs > tests::adds`, `tests/api.rs > creates`, never the build hash in
 * `target/debug/deps/sample-1a2b…`. A doc-test's `(line 3)` moves whenever the file above it changes,
 * so `src/lib.rs - add (line 3)` is named `src/lib.rs - add`.
 */
import { parseCount } from "./output-text";
import { clipMessage, type Counts, type FormatResult, type TestCaseResult, type TestStatus } from "./verdict";

const ROW = /^test (.+?) \.\.\. (ok|FAILED|ignored)(?:, (.*))?$/;
const SUMMARY =
  /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured(?:; (\d+) filtered out)?/;
/** `Running unittests src/lib.rs (target/debug/deps/sample-1a2b)`, `Running tests/api.rs (…)`, `Running target/debug/deps/api-1a2b`. */
const RUNNING = /^Running (?:unittests )?(\S+)(?: \((\S+)\))?$/;
const DOC_TESTS = /^Doc-tests (\S+)$/;
const FAILURE_BLOCK = /^---- (.+?) std(?:out|err) ----$/;
const DOC_TEST_LINE = / \(line \d+\)$/;

/** The name of a test binary as cargo's `Running` line says it, without the build hash. */
function binaryLabel(running: RegExpExecArray): string {
  const source = running[1]!;
  if (running[2] !== undefined || !source.includes("/deps/")) return source;
  return source.slice(source.lastIndexOf("/") + 1).replace(/-[0-9a-f]{16}$/, "");
}

/** The panic of a failure block: what follows `thread '…' panicked at …:`, without the backtrace notes. */
function panicMessage(lines: readonly string[]): string | null {
  const start = lines.findIndex((line) => /^thread '.*' (?:\(\d+\) )?panicked at /.test(line));
  if (start < 0) return clipMessage(lines.join("\n"));
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("note: ") || line === "stack backtrace:") break;
    body.push(line);
  }
  const text = clipMessage(body.join("\n"));
  return text ?? clipMessage(lines[start]!.replace(/ \(\d+\) panicked/, " panicked"));
}

export function parseCargoTest(options: { lines: readonly string[] }): FormatResult | null {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  const tests: TestCaseResult[] = [];
  let summaries = 0;
  let label: string | null = null;
  let binary: TestCaseResult[] = [];
  let messages = new Map<string, string[]>();
  let block: string[] | null = null;

  const finishBinary = () => {
    for (const row of binary) {
      const lines = row.status === "failed" ? messages.get(row.name) : undefined;
      if (lines) row.message = panicMessage(lines);
      if (label !== null) row.name = `${label} > ${row.name}`;
      tests.push(row);
    }
    binary = [];
    messages = new Map();
    block = null;
  };

  for (const line of options.lines) {
    const text = line.trim();
    const running = RUNNING.exec(text) ?? DOC_TESTS.exec(text);
    if (running) {
      binary = [];
      messages = new Map();
      block = null;
      label = running[0].startsWith("Doc-tests") ? null : binaryLabel(running);
      continue;
    }
    const summary = SUMMARY.exec(text);
    if (summary) {
      counts.passed += parseCount(summary[1]!) ?? 0;
      counts.failed += parseCount(summary[2]!) ?? 0;
      counts.skipped += parseCount(summary[3]!) ?? 0;
      summaries++;
      finishBinary();
      continue;
    }
    const row = ROW.exec(line.trimEnd());
    if (row) {
      block = null;
      const status: TestStatus = row[2] === "ok" ? "passed" : row[2] === "FAILED" ? "failed" : "skipped";
      const name = row[1]!.replace(DOC_TEST_LINE, "");
      binary.push({ name, status, durationMs: null, message: status === "skipped" ? clipMessage(row[3]) : null });
      continue;
    }
    const header = FAILURE_BLOCK.exec(text);
    if (header) {
      block = [];
      messages.set(header[1]!.replace(DOC_TEST_LINE, ""), block);
      continue;
    }
    if (text === "failures:") block = null;
    else if (block) block.push(line.trimEnd());
  }
  if (summaries === 0) return null;
  return { source: "cargo-test", counts, tests };
}
