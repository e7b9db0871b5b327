"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import type { StudyView } from "../../../shared/study-schemas";
import {
  TEST_MATRIX_SORTS,
  visibleTests,
  type TestCellStatus,
  type TestMatrix,
  type TestMatrixSort,
} from "../../../shared/test-matrix";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { inputClass, Panel } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { useThrottledCallback } from "../../_lib/use-throttled";

const CELL_STYLE: Record<TestCellStatus, string> = {
  passed: "bg-ok-strong/80",
  failed: "bg-danger-strong/80",
  skipped: "bg-idle/60",
  missing: "border border-dashed border-line",
};
const CELL_WORD: Record<TestCellStatus, string> = {
  passed: "passed",
  failed: "failed",
  skipped: "skipped",
  missing: "did not run",
};
const SORT_LABELS: Record<TestMatrixSort, string> = {
  order: "as reported",
  name: "by name",
  failures: "most failures first",
  flips: "flipping first",
};

/**
 * Refetches the matrix when another trial of the study ends (its per-test rows are then recorded): at
 * once for a small study, at most every 25 ms per trial for a big one (5 s at 200 trials, whose
 * matrix is 23 × 200 cells: redrawing it for every trial that ends would take the page's frames).
 */
function useTestMatrix(study: StudyView) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ended = study.trials.filter((trial) => isTerminalTrialState(trial.state)).map((trial) => trial.id);
  const endedKey = `${ended.join(",")}|${study.trials.map((trial) => trial.attempt).join(",")}`;
  const query = useQuery(trpc.studies.testMatrix.queryOptions({ studyId: study.id }));
  const refetch = useThrottledCallback(
    () => void queryClient.invalidateQueries(trpc.studies.testMatrix.queryFilter({ studyId: study.id })),
    study.trials.length > 60 ? study.trials.length * 25 : 0,
  );
  useEffect(() => {
    refetch();
  }, [endedKey, refetch]);
  return query;
}

function MatrixControls(props: {
  query: string;
  setQuery: (value: string) => void;
  flippingOnly: boolean;
  setFlippingOnly: (value: boolean) => void;
  sort: TestMatrixSort;
  setSort: (value: TestMatrixSort) => void;
}) {
  return (
    <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
      <input
        type="search"
        aria-label="Filter tests by name"
        placeholder="Filter tests…"
        value={props.query}
        onChange={(event) => props.setQuery(event.target.value)}
        className={`${inputClass} max-w-60`}
      />
      <label className="flex items-center gap-1.5">
        <input
          type="checkbox"
          checked={props.flippingOnly}
          onChange={(event) => props.setFlippingOnly(event.target.checked)}
          className="accent-accent"
        />
        Only tests that flip
      </label>
      <label className="flex items-center gap-1.5">
        Sort
        <select
          value={props.sort}
          onChange={(event) => props.setSort(event.target.value as TestMatrixSort)}
          className={`${inputClass} w-auto`}
        >
          {TEST_MATRIX_SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function MatrixGrid({ matrix, rows }: { matrix: TestMatrix; rows: TestMatrix["tests"] }) {
  return (
    <div className="max-h-[32rem] overflow-auto">
      <table className="text-xs" data-testid="test-matrix">
        <thead className="sticky top-0 bg-panel">
          <tr>
            <th className="px-2 py-1 text-left font-normal text-muted">Test</th>
            {matrix.trials.map((trial) => (
              <th key={trial.id} className="px-0.5 py-1 font-mono font-normal text-muted" scope="col">
                {trial.choice}.{trial.repeat}
              </th>
            ))}
            <th className="px-2 py-1 text-left font-normal text-muted">Flips</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((test) => (
            <tr key={test.name} data-testid="test-matrix-row" data-flips={test.flipsIn.length > 0 ? "yes" : "no"}>
              <th
                scope="row"
                className="max-w-36 truncate px-2 py-0.5 text-left font-mono font-normal sm:max-w-80"
                title={test.name}
              >
                {test.name}
              </th>
              {test.cells.map((cell, index) => {
                const trial = matrix.trials[index];
                return (
                  <td key={trial?.id ?? index} className="px-0.5 py-0.5">
                    <span
                      className={`block h-4 w-5 rounded-sm ${CELL_STYLE[cell]}`}
                      data-status={cell}
                      title={`${test.name} — trial ${trial?.choice}.${trial?.repeat}: ${CELL_WORD[cell]}`}
                      aria-label={`trial ${trial?.choice}.${trial?.repeat}: ${CELL_WORD[cell]}`}
                    />
                  </td>
                );
              })}
              <td className="px-2 py-0.5 whitespace-nowrap text-warn-ink">
                {test.flipsIn.length > 0 ? `⇄ configuration ${test.flipsIn.join(", ")}` : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Tests × trials: a heat map of every evaluated trial's per-test results, the flipping tests marked. */
export function TestMatrixPanel({ study }: { study: StudyView }) {
  const matrix = useTestMatrix(study);
  const [query, setQuery] = useState("");
  const [flippingOnly, setFlippingOnly] = useState(false);
  const [sort, setSort] = useState<TestMatrixSort>("order");
  const rows = useMemo(
    () => (matrix.data ? visibleTests({ matrix: matrix.data, query, flippingOnly, sort }) : []),
    [matrix.data, query, flippingOnly, sort],
  );
  if (matrix.error)
    return (
      <Panel title="Tests × trials" className="mt-6">
        <p className="text-sm text-danger">{describeError(matrix.error).message}</p>
      </Panel>
    );
  if (!matrix.data || matrix.data.tests.length === 0) return null;
  const flipping = matrix.data.tests.filter((test) => test.flipsIn.length > 0).length;
  return (
    <Panel title="Tests × trials" className="mt-6">
      <p className="mb-3 text-sm text-muted" data-testid="test-matrix-summary">
        {matrix.data.tests.length} tests × {matrix.data.trials.length} evaluated trials: green passed, red failed, grey
        skipped, dashed did not run.{" "}
        {flipping === 0
          ? "No test flips between repeats of one configuration."
          : `${flipping} test${flipping === 1 ? " flips" : "s flip"} between repeats of one configuration (flaky, or the agent's luck), marked ⇄.`}
      </p>
      <MatrixControls
        query={query}
        setQuery={setQuery}
        flippingOnly={flippingOnly}
        setFlippingOnly={setFlippingOnly}
        sort={sort}
        setSort={setSort}
      />
      {rows.length === 0 ? (
        <p className="text-sm text-muted">No test matches.</p>
      ) : (
        <MatrixGrid matrix={matrix.data} rows={rows} />
      )}
    </Panel>
  );
}
