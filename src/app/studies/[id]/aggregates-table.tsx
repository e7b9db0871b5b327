"use client";
import { useMemo } from "react";
import { aggregateByConfiguration } from "../../../shared/study-aggregates";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { DataTable, type Column } from "../../_components/data-table";
import { Panel } from "../../_components/ui";
import { formatCount, formatPercent, formatSeconds } from "../study-format";

type Aggregate = ReturnType<typeof aggregateByConfiguration>[number];

function range(spread: { min: number; max: number } | null, format: (value: number) => string): string {
  return spread ? `${format(spread.min)}–${format(spread.max)}` : "—";
}

function aggregateColumns(byChoice: ReadonlyMap<number, ConfigurationView>): Column<Aggregate>[] {
  return [
    { key: "choice", header: "Config", className: "tabular-nums", cell: (row) => row.choice },
    {
      key: "configuration",
      header: "Configuration",
      className: "text-xs",
      cell: (row) => {
        const configuration = byChoice.get(row.choice);
        return configuration
          ? `${configuration.harness} · ${configuration.model} · ${configuration.reasoningEffort}`
          : "—";
      },
    },
    {
      key: "finished",
      header: "Finished",
      numeric: true,
      className: "tabular-nums",
      cell: (row) => `${row.finished}/${row.trials}`,
    },
    {
      key: "pass-rate",
      header: "Pass rate",
      numeric: true,
      className: "tabular-nums",
      cellProps: () => ({ "data-testid": "aggregate-pass-rate" }),
      cell: (row) => (
        <>
          {formatPercent(row.passRate)}
          {row.finished > 0 ? (
            <span className="ml-1 text-xs text-muted">
              ({row.passedAll}/{row.finished})
            </span>
          ) : null}
        </>
      ),
    },
    {
      key: "tests",
      header: "Median tests passed",
      numeric: true,
      className: "tabular-nums",
      cell: (row) => (row.medianTestsPassed === null ? "—" : row.medianTestsPassed),
    },
    {
      key: "seconds",
      header: "Median seconds",
      numeric: true,
      className: "tabular-nums",
      cell: (row) => formatSeconds(row.medianAgentSeconds),
    },
    {
      key: "seconds-range",
      header: "Seconds min–max",
      numeric: true,
      className: "tabular-nums text-muted",
      cell: (row) => range(row.agentSeconds, (value) => formatSeconds(value)),
    },
    {
      key: "tokens",
      header: "Median tokens",
      numeric: true,
      className: "tabular-nums",
      cell: (row) => formatCount(row.medianTokens),
    },
    {
      key: "tokens-range",
      header: "Tokens min–max",
      numeric: true,
      className: "tabular-nums text-muted",
      cell: (row) => range(row.tokens, (value) => formatCount(value)),
    },
  ];
}

/** Per-configuration pass rate, medians and min–max spread; shown when some configuration ran more than once. */
export function AggregatesTable({
  configurations,
  trials,
}: {
  configurations: readonly ConfigurationView[];
  trials: readonly TrialView[];
}) {
  const aggregates = useMemo(() => aggregateByConfiguration({ configurations, trials }), [configurations, trials]);
  const columns = useMemo(
    () => aggregateColumns(new Map(configurations.map((configuration) => [configuration.choice, configuration]))),
    [configurations],
  );
  if (!aggregates.some((aggregate) => aggregate.trials > 1)) return null;
  return (
    <Panel title="Per configuration" className="mt-6">
      <DataTable
        label="Per-configuration aggregates"
        wrapperClassName="overflow-x-auto"
        columns={columns}
        rows={aggregates}
        rowKey={(row) => String(row.choice)}
        rowProps={(row) => ({ "data-testid": "aggregate-row", "data-choice": row.choice })}
      />
    </Panel>
  );
}
