// The Markdown report's per-test matrix: the tests that failed, flip or did not run somewhere, with counts;
// the tests that passed everywhere are counted, not listed (the full matrix is the JSON report's `testMatrix`).
import type { StudyReport } from "../../../shared/study-report";
import type { TestCellStatus, TestMatrixRow } from "../../../shared/test-matrix";
import { escapeCell } from "./markdown-text";
import { formatNumber, tableHead, tableRow } from "./report-markdown-table";

const CELL: Record<TestCellStatus, string> = { passed: "✓", failed: "✗", skipped: "s", missing: "·" };

/** Rows listed at most: a 10,000-test suite whose every test failed somewhere still gives a short report. */
export const MAX_LISTED_TESTS = 200;

const flips = (test: TestMatrixRow): boolean => test.flipsIn.length > 0;
const fails = (test: TestMatrixRow): boolean => test.cells.includes("failed");
const misses = (test: TestMatrixRow): boolean => test.cells.includes("missing");

const plural = (n: number, one: string, many: string): string => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** The tests worth reading, flipping ones first, then failing, then those that did not run somewhere; matrix order within each. */
function listedTests(tests: readonly TestMatrixRow[]): TestMatrixRow[] {
  const rank = (test: TestMatrixRow): number => (flips(test) ? 0 : fails(test) ? 1 : misses(test) ? 2 : 3);
  return tests
    .map((test, index) => ({ test, index, rank: rank(test) }))
    .filter((entry) => entry.rank < 3)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.test);
}

function countsLine(tests: readonly TestMatrixRow[], trials: number): string {
  const flipping = tests.filter(flips).length;
  const failing = tests.filter(fails).length;
  const missing = tests.filter(misses).length;
  const clean = tests.filter((test) => !flips(test) && !fails(test) && !misses(test)).length;
  const flipText =
    flipping === 0
      ? "No test flips between repeats of one configuration."
      : `${plural(flipping, "test flips", "tests flip")} between repeats of one configuration (flaky, or the agent's luck): marked ⇄ with the configurations.`;
  return (
    `${plural(tests.length, "test", "tests")} in ${plural(trials, "trial", "trials")}: ` +
    `${formatNumber(failing)} failed in some trial, ${formatNumber(missing)} did not run in some trial, ` +
    `${formatNumber(clean)} passed (or were skipped) in every trial and are not listed. ${flipText}`
  );
}

/**
 * The tests that flip, fail or did not run somewhere (at most MAX_LISTED_TESTS), one column per evaluated
 * trial (`1.2` = configuration 1, repeat 2): ✓ passed, ✗ failed, s skipped, · did not run; the last column names
 * the configurations whose repeats disagree on the test. The counts come first; every test is in the JSON.
 */
export function testMatrixSection(report: StudyReport): string[] {
  const matrix = report.testMatrix;
  if (!matrix || matrix.tests.length === 0) return [];
  const listed = listedTests(matrix.tests);
  const shown = listed.slice(0, MAX_LISTED_TESTS);
  const lines = [
    "## Tests × trials",
    "",
    countsLine(matrix.tests, matrix.trials.length),
    "",
    "✓ passed, ✗ failed, s skipped, · did not run; columns are trials (configuration.repeat). Every test, passing ones included, is in the JSON report (`testMatrix`).",
  ];
  if (shown.length === 0) return lines;
  lines.push("", ...tableHead(["Test", ...matrix.trials.map((trial) => `${trial.choice}.${trial.repeat}`), "flips"]));
  for (const test of shown)
    lines.push(
      tableRow([
        escapeCell(test.name),
        ...test.cells.map((cell) => CELL[cell]),
        flips(test) ? `⇄ ${test.flipsIn.map((choice) => `configuration ${choice}`).join(", ")}` : "",
      ]),
    );
  if (listed.length > shown.length)
    lines.push(
      "",
      `_${plural(listed.length - shown.length, "more test", "more tests")} that failed or did not run somewhere ${listed.length - shown.length === 1 ? "is" : "are"} not listed here (the first ${formatNumber(MAX_LISTED_TESTS)} are, flipping ones first): see the JSON report's \`testMatrix\`._`,
    );
  return lines;
}
