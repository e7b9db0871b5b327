/**
 * Python's unittest (`python -m unittest`, `-v` for rows): the summary `Ran 8 tests in 0.021s`, then
 * `OK`, `OK (skipped=1)`, `FAILED (failures=1, errors=1, skipped=1)` or `NO TESTS RAN`. Failures
 * and errors count as failed, and so do unexpected successes (Python 3.11 fails the run for them);
 * skipped and expected failures count as skipped; the rest of "Ran N" passed. A failing subtest counts
 * as unittest counts it: one failure each.
 *
 * Rows from `-v` lines, `test_adds (test_math.TestArithmetic.test_adds) ... ok` (Python 3.11+) or
 * `test_adds (test_math.TestArithmetic) ... ok` (up to 3.10), both named `test_math.TestArithmetic.test_adds`
 * (a subtest keeps its parameters: `… (i=1)`); a docstring's first line may stand between the name
 * and ` ... ok`, and a test's own output between ` ... ` and its status. Without `-v`, the rows are
 * the `FAIL:` / `ERROR:` blocks (the failures only). Messages are the exception of each block's traceback.
 */
import { RunSegments } from "./run-segments";
import { parseCount } from "./output-text";
import { clipMessage, type Counts, type FormatResult, type TestCaseResult, type TestStatus } from "./verdict";

/** `test_adds (test_math.TestArithmetic.test_adds) (i=1) ... ok`: method, dotted path, subtest params, the rest. */
const VERBOSE_LINE = /^\s*(\w+) \(([\w.]+)\)((?: \(.*\))?) \.\.\.(?: (.*))?$/;
/** The name alone: a docstring line follows, ending with ` ... ok`. */
const NAME_ONLY = /^\s*(\w+) \(([\w.]+)\)((?: \(.*\))?)$/;
const BLOCK_HEADER = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)((?: \(.*\))?)$/;
const RAN = /^Ran (\d+) tests? in \d+(?:\.\d+)?s$/;
const OUTCOME = /^(OK|FAILED)(?: \((.*)\))?$/;
const RULE = /^(=+|-+)$/;

/** Python 3.11+ prints the test's full path, earlier versions the class: the same name for both. */
function testName(method: string, path: string, params: string): string {
  const full = path.endsWith(`.${method}`) ? path : `${path}.${method}`;
  return `${full}${params}`;
}

/** `ok`, `FAIL`, `skipped 'reason'` … → status and reason; null when the text is not a status. */
function statusOf(text: string): { status: TestStatus; reason: string | null } | null {
  const value = text.trim();
  if (value === "ok" || value === "unexpected success" || value === "FAIL" || value === "ERROR")
    return { status: value === "ok" ? "passed" : "failed", reason: null };
  if (value === "expected failure") return { status: "skipped", reason: "expected failure" };
  const skipped = /^skipped(?: (['"])(.*)\1)?$/.exec(value);
  return skipped ? { status: "skipped", reason: skipped[2] ?? null } : null;
}

/** `failures=1, errors=1, skipped=1, expected failures=1, unexpected successes=1` with "Ran N". */
function countsOf(ran: number, details: string): Counts {
  const found: Record<string, number> = {};
  for (const part of details.split(",")) {
    const [key = "", value = ""] = part.split("=").map((text) => text.trim());
    found[key] = parseCount(value) ?? 0;
  }
  const failed = (found.failures ?? 0) + (found.errors ?? 0) + (found["unexpected successes"] ?? 0);
  const skipped = (found.skipped ?? 0) + (found["expected failures"] ?? 0);
  return { passed: Math.max(0, ran - failed - skipped), failed, skipped };
}

/** The exception of the last traceback in a block (`ValueError: boom` and its following lines), else the block. */
function blockMessage(lines: readonly string[]): string | null {
  const start = lines.findLastIndex((line) => line.startsWith("Traceback (most recent call last):"));
  if (start < 0) return clipMessage(lines.join("\n"));
  let end = start + 1;
  while (end < lines.length && (lines[end]!.startsWith(" ") || lines[end] === "")) end++;
  return clipMessage(lines.slice(end).join("\n"));
}

interface UnittestRun {
  counts: Counts;
  verbose: TestCaseResult[];
  blocks: TestCaseResult[];
}

export function parseUnittest(options: { lines: readonly string[] }): FormatResult | null {
  const reader = new UnittestReader();
  for (const line of options.lines) reader.read(line.trimEnd());
  const found = reader.segments.result({ requireSummary: true });
  const run = found?.summary;
  if (!run) return null;
  const messages = new Map(run.blocks.map((row) => [row.name, row.message]));
  const tests =
    run.verbose.length > 0
      ? run.verbose.map((row) => (row.status === "failed" ? { ...row, message: messages.get(row.name) ?? null } : row))
      : run.blocks;
  return { source: "unittest", counts: run.counts, tests };
}

class UnittestReader {
  readonly segments = new RunSegments<UnittestRun>();
  private verbose: TestCaseResult[] = [];
  private blocks: TestCaseResult[] = [];
  /** A test whose status is still to come (after a docstring line or the test's own output). */
  private pending: string | null = null;
  private block: { row: TestCaseResult; lines: string[]; started: boolean } | null = null;
  private ran: number | null = null;

  read(text: string): void {
    if (this.ran !== null) return this.readOutcome(text);
    const header = BLOCK_HEADER.exec(text);
    if (header) {
      this.finishBlock();
      const status: TestStatus = "failed";
      this.block = {
        row: { name: testName(header[2]!, header[3]!, header[4]!), status, durationMs: null, message: null },
        lines: [],
        started: false,
      };
      return;
    }
    const ran = RAN.exec(text);
    if (ran) {
      this.finishBlock();
      this.ran = parseCount(ran[1]!) ?? 0;
      return;
    }
    if (this.block) return this.readBlock(text);
    this.readRow(text);
  }

  private readRow(text: string): void {
    const line = VERBOSE_LINE.exec(text);
    if (line) {
      this.pending = testName(line[1]!, line[2]!, line[3]!);
      this.settle(line[4] ?? "");
      return;
    }
    const nameOnly = NAME_ONLY.exec(text);
    if (nameOnly) {
      this.pending = testName(nameOnly[1]!, nameOnly[2]!, nameOnly[3]!);
      return;
    }
    if (this.pending === null) return;
    // a docstring line ending in ` ... ok`, or the status alone after the test's own output
    const at = text.lastIndexOf(" ... ");
    this.settle(at >= 0 ? text.slice(at + 5) : text);
  }

  /** Adds the pending test's row when `text` is its status. */
  private settle(text: string): void {
    const outcome = statusOf(text);
    if (!outcome || this.pending === null) return;
    this.verbose.push({
      name: this.pending,
      status: outcome.status,
      durationMs: null,
      message: outcome.status === "skipped" ? clipMessage(outcome.reason) : null,
    });
    this.pending = null;
  }

  private readBlock(text: string): void {
    const block = this.block!;
    if (RULE.test(text)) {
      if (block.started || text.startsWith("=")) this.finishBlock();
      else block.started = true;
      return;
    }
    if (block.started) block.lines.push(text);
  }

  private finishBlock(): void {
    const block = this.block;
    this.block = null;
    if (!block) return;
    while (block.lines.length > 0 && block.lines[block.lines.length - 1] === "") block.lines.pop();
    block.row.message = blockMessage(block.lines);
    this.blocks.push(block.row);
  }

  /** The line after `Ran N tests`: `OK …`, `FAILED (…)` or `NO TESTS RAN` (blank lines before it are skipped). */
  private readOutcome(text: string): void {
    if (text === "") return;
    const ran = this.ran ?? 0;
    this.ran = null;
    const outcome = OUTCOME.exec(text);
    if (!outcome && text !== "NO TESTS RAN") return;
    this.segments.setSummary({ counts: countsOf(ran, outcome?.[2] ?? ""), verbose: this.verbose, blocks: this.blocks });
    this.verbose = [];
    this.blocks = [];
    this.pending = null;
  }
}
