import { z } from "zod";
import { stableTestName } from "./test-name";
import { count } from "./zod-fields";

/**
 * The per-test matrix of a study: tests × trials, which test each trial passed, and which tests flip
 * between repeats of one configuration (flaky tests, or the agent's luck). Built from the per-test rows of
 * every evaluated trial; a trial whose verdict had no per-test rows (an exit-code verdict, a summary line)
 * is left out, and a test a trial did not report is `missing` there (it did not run).
 */
export const TEST_CELL_STATUSES = ["passed", "failed", "skipped", "missing"] as const;
export const testCellStatusSchema = z.enum(TEST_CELL_STATUSES);
export type TestCellStatus = z.infer<typeof testCellStatusSchema>;

export const testMatrixSchema = z.object({
  /** The columns: evaluated trials ordered by configuration and repeat. */
  trials: z.array(z.object({ id: z.string().min(1), choice: z.int().positive(), repeat: z.int().positive() })),
  tests: z.array(
    z.object({
      /**
       * The runner's name for the test as a stable key (src/shared/test-name.ts: no TAP `# time=`,
       * durations or seeds); a name a trial reported twice gets " (2)", " (3)" ...
       */
      name: z.string(),
      /** One status per column of `trials`, in that order. */
      cells: z.array(testCellStatusSchema),
      /** The configurations (numbers) whose repeats disagree on this test. */
      flipsIn: z.array(z.int().positive()),
      passed: count,
    }),
  ),
});
export type TestMatrix = z.infer<typeof testMatrixSchema>;
export type TestMatrixRow = TestMatrix["tests"][number];

export interface MatrixTrial {
  /** Set for a follow-up attempt, which the matrix leaves out (it compares repeats). */
  parentTrialId?: string | null | undefined;
  id: string;
  choice: number;
  repeat: number;
}

/**
 * A trial's names as stable keys (rows stored before the verdict parsers normalized names still match),
 * made unique in the order reported: the second "adds" is "adds (2)".
 */
function uniqueNames(tests: readonly { name: string; status: "passed" | "failed" | "skipped" }[]) {
  const seen = new Map<string, number>();
  return tests.map((test) => {
    const name = stableTestName(test.name);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return { name: n === 1 ? name : `${name} (${n})`, status: test.status };
  });
}

/**
 * The matrix of the given trials and their per-test rows (`results`, by trial id; trials without rows are
 * left out, and so are follow-ups). Tests are in first-reported order; a test flips in a configuration when two of its evaluated
 * repeats gave it different statuses.
 */
export function buildTestMatrix(options: {
  trials: readonly MatrixTrial[];
  results: ReadonlyMap<string, readonly { name: string; status: "passed" | "failed" | "skipped" }[]>;
}): TestMatrix {
  // repeats only: a follow-up (review feedback sent back to the agent) is no sample of its configuration
  const columns = options.trials
    .filter((trial) => !trial.parentTrialId && (options.results.get(trial.id)?.length ?? 0) > 0)
    .sort((a, b) => a.choice - b.choice || a.repeat - b.repeat);
  const byTrial = columns.map(
    (trial) => new Map(uniqueNames(options.results.get(trial.id) ?? []).map((t) => [t.name, t.status])),
  );
  const names: string[] = [];
  const known = new Set<string>();
  for (const statuses of byTrial)
    for (const name of statuses.keys())
      if (!known.has(name)) {
        known.add(name);
        names.push(name);
      }
  const tests = names.map((name) => {
    const cells: TestCellStatus[] = byTrial.map((statuses) => statuses.get(name) ?? "missing");
    const byChoice = new Map<number, Set<TestCellStatus>>();
    columns.forEach((trial, index) => {
      const set = byChoice.get(trial.choice) ?? new Set<TestCellStatus>();
      set.add(cells[index] ?? "missing");
      byChoice.set(trial.choice, set);
    });
    const flipsIn = [...byChoice].flatMap(([choice, set]) => (set.size > 1 ? [choice] : []));
    return { name, cells, flipsIn, passed: cells.filter((cell) => cell === "passed").length };
  });
  return { trials: columns.map(({ id, choice, repeat }) => ({ id, choice, repeat })), tests };
}

export const TEST_MATRIX_SORTS = ["order", "name", "failures", "flips"] as const;
export type TestMatrixSort = (typeof TEST_MATRIX_SORTS)[number];

/** The rows to show: filtered by a name substring and "flipping only", then sorted. */
export function visibleTests(options: {
  matrix: TestMatrix;
  query: string;
  flippingOnly: boolean;
  sort: TestMatrixSort;
}): TestMatrixRow[] {
  const query = options.query.trim().toLowerCase();
  const rows = options.matrix.tests.filter(
    (row) => (!query || row.name.toLowerCase().includes(query)) && (!options.flippingOnly || row.flipsIn.length > 0),
  );
  const failures = (row: TestMatrixRow) => row.cells.length - row.passed;
  switch (options.sort) {
    case "name":
      return [...rows].sort((a, b) => a.name.localeCompare(b.name));
    case "failures":
      return [...rows].sort((a, b) => failures(b) - failures(a));
    case "flips":
      return [...rows].sort((a, b) => b.flipsIn.length - a.flipsIn.length);
    default:
      return rows;
  }
}
