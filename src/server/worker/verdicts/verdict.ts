/**
 * The verdict of one evaluation: what a study's test command reported, parsed from the JUnit XML it
 * wrote or from its output (see docs/verdicts.md). Pure data and the helpers every format parser shares.
 */
import { stableTestName } from "../../../shared/test-name";
import { MAX_TEST_ROWS, type TestResultView } from "../../../shared/verdict-summary";

export type VerdictSource =
  | "junit"
  | "tap"
  | "node-test"
  | "vitest"
  | "jest"
  | "mocha"
  | "pytest"
  | "unittest"
  | "go-test"
  | "cargo-test"
  | "summary-line"
  | "exit-code";

/** One test row as every parser reports it: the shared TestResultView (src/shared/verdict-summary.ts). */
export type TestCaseResult = TestResultView;
export type TestStatus = TestCaseResult["status"];

export interface Verdict {
  source: VerdictSource;
  /** Counts; null only for exit-code verdicts. `total` is always passed + failed + skipped. */
  passed: number | null;
  failed: number | null;
  skipped: number | null;
  total: number | null;
  /** exit-code verdicts: pass iff exit code 0. Others: failed === 0 && total > 0 */
  ok: boolean;
  /**
   * Per-test rows when the format gives them, at most MAX_TEST_ROWS (failed rows kept first), each
   * named by its stable name (src/shared/test-name.ts: no times, durations or seeds).
   */
  tests: TestCaseResult[];
  testsTruncated: boolean;
}

export { MAX_TEST_ROWS };
/** Only the end of a long output matters: the summary is printed last. */
export const OUTPUT_TAIL_CHARS = 2 * 1024 * 1024;
export const MAX_MESSAGE_CHARS = 4000;

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** What a format parser found: counts (from the summary, else from the rows) and the rows. */
export interface FormatResult {
  source: Exclude<VerdictSource, "exit-code">;
  counts: Counts;
  tests: TestCaseResult[];
}

export function emptyCounts(): Counts {
  return { passed: 0, failed: 0, skipped: 0 };
}

export function countRows(options: { rows: readonly TestCaseResult[] }): Counts {
  const counts = emptyCounts();
  for (const row of options.rows) counts[row.status] += 1;
  return counts;
}

/** Keeps every failed row it can, then the others, in their original order. */
function selectRows(rows: readonly TestCaseResult[]): { tests: TestCaseResult[]; truncated: boolean } {
  if (rows.length <= MAX_TEST_ROWS) return { tests: [...rows], truncated: false };
  let failedBudget = MAX_TEST_ROWS;
  let otherBudget = Math.max(0, MAX_TEST_ROWS - rows.filter((row) => row.status === "failed").length);
  const tests: TestCaseResult[] = [];
  for (const row of rows) {
    if (row.status === "failed" ? failedBudget-- > 0 : otherBudget-- > 0) tests.push(row);
  }
  return { tests, truncated: true };
}

export function verdictFromFormat(result: FormatResult): Verdict {
  const { passed, failed, skipped } = result.counts;
  const total = passed + failed + skipped;
  const { tests, truncated } = selectRows(result.tests.map((row) => ({ ...row, name: stableTestName(row.name) })));
  return {
    source: result.source,
    passed,
    failed,
    skipped,
    total,
    ok: failed === 0 && total > 0,
    tests,
    testsTruncated: truncated,
  };
}

export function exitCodeVerdict(options: { exitCode: number | null }): Verdict {
  return {
    source: "exit-code",
    passed: null,
    failed: null,
    skipped: null,
    total: null,
    ok: options.exitCode === 0,
    tests: [],
    testsTruncated: false,
  };
}

/** Milliseconds rounded to the microsecond (so 0.000902 s reads 0.902, not 0.9019999999). */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function clipMessage(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.trim();
  if (trimmed === "") return null;
  return trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS)}…` : trimmed;
}
