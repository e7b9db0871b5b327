"use client";
import { configurationDescription } from "../../../shared/configuration-label";
import { useMemo } from "react";
import { aggregateByConfiguration } from "../../../shared/study-aggregates";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { DataTable, type Column } from "../../_components/data-table";
import { Panel } from "../../_components/ui";
import { formatCount, formatPercent, formatSeconds } from "../study-format";
import { ComparisonsList } from "./comparisons-list";
import { IntervalBar, intervalText } from "./interval-bar";

type Aggregate = ReturnType<typeof aggregateByConfiguration>[number];

function range(spread: { min: number; max: number } | null, format: (value: number) => string): string {
  return spread ? `${format(spread.min)}–${format(spread.max)}` : "—";
}

/** A rate with its error bar and, under it, the 95 % interval in figures. */
function RateCell(props: {
  value: number;
  interval: { low: number; high: number } | null | undefined;
  label: string;
  detail?: string;
}) {
  const text = intervalText(props.interval);
  return (
    <span className="inline-flex flex-col items-end gap-0.5">
      <span className="inline-flex items-center gap-2">
        <IntervalBar value={props.value} interval={props.interval} label={props.label} />
        <span>
          {formatPercent(props.value)}
          {props.detail ? <span className="ml-1 text-xs text-muted">({props.detail})</span> : null}
        </span>
      </span>
      <span className="text-xs text-muted">{text ? `95 % CI ${text}` : "one trial: no interval"}</span>
    </span>
  );
}

/** Pass rate and mean fraction of tests passed, each with its error bar and interval. */
function rateColumns(): Column<Aggregate>[] {
  return [
    {
      key: "pass-rate",
      header: "Pass rate",
      numeric: true,
      className: "tabular-nums",
      cellProps: () => ({ "data-testid": "aggregate-pass-rate" }),
      cell: (row) =>
        row.passRate === null ? (
          "—"
        ) : (
          <RateCell
            value={row.passRate}
            interval={row.passRateInterval}
            label={`Configuration ${row.choice} pass rate`}
            detail={`${row.passedAll}/${row.finished}`}
          />
        ),
    },
    {
      key: "mean-fraction",
      header: "Mean tests passed",
      numeric: true,
      className: "tabular-nums",
      cellProps: () => ({ "data-testid": "aggregate-mean-fraction" }),
      cell: (row) =>
        row.meanFractionPassed == null ? (
          "—"
        ) : (
          <RateCell
            value={row.meanFractionPassed}
            interval={row.meanFractionInterval}
            label={`Configuration ${row.choice} mean fraction of tests passed`}
          />
        ),
    },
  ];
}

function aggregateColumns(byChoice: ReadonlyMap<number, ConfigurationView>): Column<Aggregate>[] {
  return [
    { key: "choice", header: "#", className: "tabular-nums", cell: (row) => row.choice },
    {
      key: "configuration",
      header: "Configuration",
      className: "text-xs",
      cell: (row) => {
        const configuration = byChoice.get(row.choice);
        return configuration ? (
          <span className="break-words" title={configurationDescription(configuration)}>
            {configuration.label}
          </span>
        ) : (
          "—"
        );
      },
    },
    {
      key: "finished",
      header: "Finished",
      numeric: true,
      className: "tabular-nums",
      cell: (row) => `${row.finished}/${row.trials}`,
    },
    ...rateColumns(),
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

/**
 * Per-configuration pass rate and mean tests passed with their 95 % intervals, medians and min–max spread
 * (when some configuration ran more than once), and every pair of configurations compared (when there
 * are two or more).
 */
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
  const repeated = aggregates.some((aggregate) => aggregate.trials > 1);
  if (!repeated && configurations.length < 2) return null;
  return (
    <Panel title="Per configuration" className="mt-6">
      {repeated ? (
        <DataTable
          label="Per-configuration aggregates"
          wrapperClassName="overflow-x-auto"
          columns={columns}
          rows={aggregates}
          rowKey={(row) => String(row.choice)}
          rowProps={(row) => ({ "data-testid": "aggregate-row", "data-choice": row.choice })}
        />
      ) : null}
      <ComparisonsList configurations={configurations} aggregates={aggregates} />
    </Panel>
  );
}
