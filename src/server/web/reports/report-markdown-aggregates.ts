// The Markdown report's per-configuration table (rates with their intervals) and its comparisons.
import {
  COMPARISON_METHODS,
  compareConfigurations,
  type PairComparison,
} from "../../../shared/configuration-comparison";
import { aggregateByConfiguration } from "../../../shared/study-aggregates";
import type { StudyAggregate, StudyReport } from "../../../shared/study-report";
import { escapeInline } from "./markdown-text";
import {
  configurationCells,
  formatNumber,
  formatSeconds,
  NONE,
  spreadCell,
  tableHead,
  tableRow,
} from "./report-markdown-table";

const percent = (value: number) => String(Math.round(value * 100));

function intervalText(interval: { low: number; high: number } | null | undefined): string {
  return interval ? `; ${percent(interval.low)}–${percent(interval.high)}` : "";
}

/** The per-configuration table: finished trials, rates with their intervals, medians and spreads. */
export function aggregatesSection(report: StudyReport): string[] {
  const recorded = new Map(report.aggregates.map((aggregate) => [aggregate.choice, aggregate]));
  const computed = new Map(aggregateByConfiguration(report).map((aggregate) => [aggregate.choice, aggregate]));
  const lines = [
    "## Per configuration",
    "",
    "Over finished trials. Pass rate: the finished trials that passed every test they counted, or, judged by exit code only, exited 0, " +
      `with its 95 % ${COMPARISON_METHODS.passRate}. Mean tests passed: the mean fraction of its tests a trial passed, with a 95 % ${COMPARISON_METHODS.meanFraction} (none for a single trial).`,
    "",
    ...tableHead([
      "#",
      "configuration",
      "finished",
      "pass rate (95 % CI)",
      "mean tests passed (95 % CI)",
      "median tests passed",
      "median agent seconds",
      "agent seconds min–max",
      "median tokens",
      "tokens min–max",
    ]),
  ];
  for (const configuration of report.configurations) {
    const aggregate = (recorded.get(configuration.choice) ?? computed.get(configuration.choice)) as StudyAggregate;
    const passRate =
      aggregate.passRate === null
        ? NONE
        : `${percent(aggregate.passRate)}% (${aggregate.passedAll}/${aggregate.finished}${intervalText(aggregate.passRateInterval)})`;
    const meanFraction =
      aggregate.meanFractionPassed == null
        ? NONE
        : `${percent(aggregate.meanFractionPassed)}%${aggregate.meanFractionInterval ? ` (${percent(aggregate.meanFractionInterval.low)}–${percent(aggregate.meanFractionInterval.high)})` : ""}`;
    lines.push(
      tableRow([
        String(configuration.choice),
        ...configurationCells(configuration),
        `${aggregate.finished}/${aggregate.trials}`,
        passRate,
        meanFraction,
        aggregate.medianTestsPassed === null ? NONE : formatNumber(aggregate.medianTestsPassed),
        formatSeconds(aggregate.medianAgentSeconds),
        spreadCell({ spread: aggregate.agentSeconds, format: (value) => value.toFixed(1) }),
        aggregate.medianTokens === null ? NONE : formatNumber(aggregate.medianTokens),
        spreadCell({ spread: aggregate.tokens, format: formatNumber }),
      ]),
    );
  }
  return lines;
}

/**
 * Every pair of configurations compared on their pass rates, in plain language, with the method named;
 * recomputed from the aggregates when a report predates the field. Empty for a single configuration.
 */
export function comparisonsSection(report: StudyReport): string[] {
  const comparisons: PairComparison[] =
    report.comparisons ??
    compareConfigurations(
      report.configurations,
      report.aggregates.length > 0 ? report.aggregates : aggregateByConfiguration(report),
    );
  if (comparisons.length === 0) return [];
  return [
    "## Comparisons",
    "",
    `On "passed every test", pair by pair: ${COMPARISON_METHODS.difference}. A configuration is called better only when the 95 % interval of the difference excludes zero and Fisher's exact p is below 0.05.`,
    "",
    ...comparisons.map((comparison) => `- ${escapeInline(comparison.sentence)}`),
  ];
}
