// The Markdown report's per-test matrix: tests × trials, with the tests that flip between repeats marked.
import type { StudyReport } from "../../../shared/study-report";
import type { TestCellStatus } from "../../../shared/test-matrix";
import { escapeCell } from "./markdown-text";
import { tableHead, tableRow } from "./report-markdown-table";

const CELL: Record<TestCellStatus, string> = { passed: "✓", failed: "✗", skipped: "s", missing: "·" };

/**
 * One row per test, one column per evaluated trial (`1.2` = config 1, repeat 2): ✓ passed, ✗ failed,
 * s skipped, · did not run. The last column names the configurations whose repeats disagree on the test.
 */
export function testMatrixSection(report: StudyReport): string[] {
  const matrix = report.testMatrix;
  if (!matrix || matrix.tests.length === 0) return [];
  const flipping = matrix.tests.filter((test) => test.flipsIn.length > 0).length;
  const lines = [
    "## Tests × trials",
    "",
    "✓ passed, ✗ failed, s skipped, · did not run; columns are trials (config.repeat). " +
      (flipping === 0
        ? "No test flips between repeats of one configuration."
        : `${flipping} test${flipping === 1 ? " flips" : "s flip"} between repeats of one configuration (flaky, or the agent's luck): marked ⇄ with the configurations.`),
    "",
    ...tableHead(["Test", ...matrix.trials.map((trial) => `${trial.choice}.${trial.repeat}`), "flips"]),
  ];
  for (const test of matrix.tests)
    lines.push(
      tableRow([
        escapeCell(test.name),
        ...test.cells.map((cell) => CELL[cell]),
        test.flipsIn.length > 0 ? `⇄ ${test.flipsIn.map((choice) => `config ${choice}`).join(", ")}` : "",
      ]),
    );
  return lines;
}
