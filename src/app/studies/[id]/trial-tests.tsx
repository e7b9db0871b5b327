"use client";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { TestResultView } from "../../../shared/verdict-summary";
import type { TrialView } from "../../../shared/study-schemas";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { DataTable, type Column } from "../../_components/data-table";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

const testStatusStyle: Record<string, string> = {
  passed: "text-ok-soft",
  failed: "text-danger-soft",
  skipped: "text-muted",
};

const testColumns: Column<TestResultView>[] = [
  { key: "name", header: "Test", className: "font-mono text-xs", cell: (row) => row.name },
  {
    key: "status",
    header: "Status",
    className: (row) => `text-xs ${testStatusStyle[row.status] ?? ""}`,
    cell: (row) => row.status,
  },
  {
    key: "ms",
    header: "ms",
    numeric: true,
    className: "text-xs tabular-nums",
    cell: (row) => (row.durationMs === null ? "—" : Math.round(row.durationMs)),
  },
  {
    key: "message",
    header: "Message",
    className: "max-w-md whitespace-pre-wrap text-xs text-muted",
    cell: (row) => row.message ?? "",
  },
];

/** A finished trial's per-test results, failed tests first. */
export function TrialTests({ trial }: { trial: TrialView }) {
  const trpc = useTRPC();
  const finished = isTerminalTrialState(trial.state);
  const tests = useQuery(trpc.studies.trialTests.queryOptions({ trialId: trial.id }, { enabled: finished }));
  const orderedTests = useMemo(() => {
    const rows = tests.data ?? [];
    return [...rows.filter((row) => row.status === "failed"), ...rows.filter((row) => row.status !== "failed")];
  }, [tests.data]);
  const failedCount = orderedTests.filter((row) => row.status === "failed").length;

  return (
    <>
      <h3 className="mb-1 text-xs uppercase tracking-wide text-muted">
        Tests{tests.data ? ` (${tests.data.length}${failedCount > 0 ? `, ${failedCount} failed` : ""})` : ""}
      </h3>
      {!finished ? (
        <p className="mb-4 text-sm text-muted">Per-test results appear when the evaluation finishes.</p>
      ) : null}
      {tests.error ? <p className="mb-4 text-sm text-danger">{describeError(tests.error).message}</p> : null}
      {finished && tests.data?.length === 0 ? (
        <p className="mb-4 text-sm text-muted">
          No per-test results (the verdict came from {trial.verdict?.source ?? "nowhere"}).
        </p>
      ) : null}
      {orderedTests.length > 0 ? (
        <DataTable
          label="Test results"
          density="dense"
          stickyHeader
          wrapperClassName="mb-4 max-h-80 overflow-auto rounded-md border border-line"
          columns={testColumns}
          rows={orderedTests}
          rowKey={(row, index) => `${index}:${row.name}`}
          rowClassName="border-t border-line align-top"
          rowProps={(row) => ({ "data-testid": "test-result", "data-status": row.status })}
        />
      ) : null}
    </>
  );
}
