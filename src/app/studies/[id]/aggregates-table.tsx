"use client";
import { useMemo } from "react";
import { aggregateByConfiguration } from "../../../shared/study-aggregates";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { Panel } from "../../_components/ui";
import { formatCount, formatPercent, formatSeconds } from "../study-format";

/** Per-configuration pass rate, medians and min–max spread; shown when some configuration ran more than once. */
export function AggregatesTable({
  configurations,
  trials,
}: {
  configurations: readonly ConfigurationView[];
  trials: readonly TrialView[];
}) {
  const aggregates = useMemo(() => aggregateByConfiguration({ configurations, trials }), [configurations, trials]);
  const byChoice = useMemo(
    () => new Map(configurations.map((configuration) => [configuration.choice, configuration])),
    [configurations],
  );
  if (!aggregates.some((aggregate) => aggregate.trials > 1)) return null;
  return (
    <Panel title="Per configuration" className="mt-6">
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" aria-label="Per-configuration aggregates">
          <thead className="text-xs uppercase text-muted">
            <tr>
              <th className="px-2 py-2">Choice</th>
              <th className="px-2">Configuration</th>
              <th className="px-2 text-right">Finished</th>
              <th className="px-2 text-right">Pass rate</th>
              <th className="px-2 text-right">Median tests passed</th>
              <th className="px-2 text-right">Median seconds</th>
              <th className="px-2 text-right">Seconds min–max</th>
              <th className="px-2 text-right">Median tokens</th>
              <th className="px-2 text-right">Tokens min–max</th>
            </tr>
          </thead>
          <tbody>
            {aggregates.map((aggregate) => {
              const configuration = byChoice.get(aggregate.choice);
              return (
                <tr
                  key={aggregate.choice}
                  className="border-t border-line"
                  data-testid="aggregate-row"
                  data-choice={aggregate.choice}
                >
                  <td className="px-2 py-2 tabular-nums">{aggregate.choice}</td>
                  <td className="px-2 py-2 text-xs">
                    {configuration
                      ? `${configuration.harness} · ${configuration.model} · ${configuration.reasoningEffort}`
                      : "—"}
                  </td>
                  <td className="px-2 py-2 text-right tabular-nums">
                    {aggregate.finished}/{aggregate.trials}
                  </td>
                  <td className="px-2 py-2 text-right tabular-nums" data-testid="aggregate-pass-rate">
                    {formatPercent(aggregate.passRate)}
                    {aggregate.finished > 0 ? (
                      <span className="ml-1 text-xs text-muted">
                        ({aggregate.passedAll}/{aggregate.finished})
                      </span>
                    ) : null}
                  </td>
                  <td className="px-2 py-2 text-right tabular-nums">
                    {aggregate.medianTestsPassed === null ? "—" : aggregate.medianTestsPassed}
                  </td>
                  <td className="px-2 py-2 text-right tabular-nums">{formatSeconds(aggregate.medianAgentSeconds)}</td>
                  <td className="px-2 py-2 text-right tabular-nums text-muted">
                    {aggregate.agentSeconds
                      ? `${formatSeconds(aggregate.agentSeconds.min)}–${formatSeconds(aggregate.agentSeconds.max)}`
                      : "—"}
                  </td>
                  <td className="px-2 py-2 text-right tabular-nums">{formatCount(aggregate.medianTokens)}</td>
                  <td className="px-2 py-2 text-right tabular-nums text-muted">
                    {aggregate.tokens
                      ? `${formatCount(aggregate.tokens.min)}–${formatCount(aggregate.tokens.max)}`
                      : "—"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}
