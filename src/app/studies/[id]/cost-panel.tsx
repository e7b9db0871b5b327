"use client";
import { configurationDescription } from "../../../shared/configuration-label";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { formatCost, priceOf } from "../../../shared/model-prices";
import { studyCosts, trialCost } from "../../../shared/study-costs";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { Panel } from "../../_components/ui";
import { useTRPC } from "../../_lib/trpc";

/** The price table in force (shipped defaults with the System page's edits). */
function usePrices() {
  const trpc = useTRPC();
  return useQuery(trpc.studies.prices.queryOptions()).data;
}

/** One trial's cost by its model's price: "$0.0123", "unknown price", or nothing while the table loads. */
export function TrialCost({ trial, model }: { trial: TrialView; model: string | undefined }) {
  const prices = usePrices();
  if (!prices || model === undefined) return null;
  return (
    <span className="ml-1 text-xs text-muted" data-testid="trial-cost">
      · {formatCost(trialCost(trial, priceOf(model, prices)))}
    </span>
  );
}

function BudgetLine({ study, cost }: { study: StudyView; cost: number | null }) {
  const { tokens, money } = study.budget;
  if (tokens === null && money === null) return null;
  const used = study.trials.reduce((sum, trial) => sum + trial.tokens.total, 0);
  return (
    <p className="mt-1 text-sm" data-testid="study-budget">
      Budget:{" "}
      {tokens !== null ? `${used.toLocaleString("en-US")} of ${tokens.toLocaleString("en-US")} tokens used` : null}
      {tokens !== null && money !== null ? "; " : null}
      {money !== null ? `${formatCost(cost)} of ${formatCost(money)} spent` : null}. Reaching it stops the queued
      trials.
    </p>
  );
}

/** Cost by the price table: per configuration (median per finished trial, total) and the study's total. */
export function CostPanel({ study }: { study: StudyView }) {
  const prices = usePrices();
  const costs = useMemo(
    () => (prices ? studyCosts({ configurations: study.configurations, trials: study.trials, prices }) : null),
    [prices, study.configurations, study.trials],
  );
  if (!costs || study.trials.every((trial) => trial.tokens.total === 0)) return null;
  return (
    <Panel title="Cost" className="mt-6">
      <p className="text-sm" data-testid="study-cost">
        Study total: <span className="font-medium">{formatCost(costs.total)}</span>
        {costs.unknownModels.length > 0 ? (
          <span className="text-muted">
            {" "}
            (no price for {costs.unknownModels.join(", ")}: set one on the System page)
          </span>
        ) : null}
      </p>
      <BudgetLine study={study} cost={costs.total} />
      <table className="mt-3 text-sm">
        <thead>
          <tr className="text-left text-xs text-muted">
            <th className="px-2 py-1 font-normal">#</th>
            <th className="px-2 py-1 font-normal">Configuration</th>
            <th className="px-2 py-1 text-right font-normal">Median per trial</th>
            <th className="px-2 py-1 text-right font-normal">Total</th>
          </tr>
        </thead>
        <tbody>
          {costs.configurations.map((row) => {
            const configuration = study.configurations.find((candidate) => candidate.choice === row.choice);
            const title =
              configuration?.harness === "command" ? configurationDescription(configuration) : `priced as ${row.model}`;
            return (
              <tr key={row.choice} className="border-t border-line" data-testid="configuration-cost">
                <td className="px-2 py-1 tabular-nums">{row.choice}</td>
                <td className="max-w-64 px-2 py-1 text-xs break-words" title={title}>
                  {configuration?.label ?? row.model}
                </td>
                <td className="px-2 py-1 text-right tabular-nums">{formatCost(row.median)}</td>
                <td className="px-2 py-1 text-right tabular-nums">{formatCost(row.total)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Panel>
  );
}
