import { priceOf, tokenCost, type ModelPrice } from "./model-prices";
import type { StudyBudget, StudyCosts } from "./study-cost-schemas";
import { median } from "./study-aggregates";
import type { ReportTrial } from "./study-report";
import type { TrialState } from "./vocabulary";
import { isTerminalTrialState } from "./vocabulary";

/**
 * A study's cost in US dollars from its trials' tokens and the price table: per trial, per configuration
 * (median over finished trials, total over all) and for the study. A model without a price makes its
 * costs `null` ("unknown price"), and the study's total too while such a trial used tokens.
 */

type CostedTrial = Pick<ReportTrial, "id" | "choice" | "tokens"> & {
  state: TrialState;
  /** A follow-up attempt: in the totals, not in the per-configuration median (which compares first attempts). */
  parentTrialId?: string | null | undefined;
};

/** What one trial cost: 0 without tokens, null when its model has no price. */
export function trialCost(trial: Pick<ReportTrial, "tokens">, price: ModelPrice | null): number | null {
  if (trial.tokens.total === 0) return 0;
  return price ? tokenCost(trial.tokens, price) : null;
}

export function studyCosts(options: {
  configurations: readonly { choice: number; model: string }[];
  trials: readonly CostedTrial[];
  prices: readonly ModelPrice[];
}): StudyCosts {
  const priceByChoice = new Map(
    options.configurations.map((configuration) => [configuration.choice, priceOf(configuration.model, options.prices)]),
  );
  const trials = options.trials.map((trial) => ({
    trialId: trial.id,
    choice: trial.choice,
    finished: isTerminalTrialState(trial.state),
    followUp: Boolean(trial.parentTrialId),
    cost: trialCost(trial, priceByChoice.get(trial.choice) ?? null),
  }));
  const configurations = options.configurations.map(({ choice, model }) => {
    const own = trials.filter((trial) => trial.choice === choice);
    const unknown = own.some((trial) => trial.cost === null);
    const finished = own.filter((trial) => trial.finished && !trial.followUp).map((trial) => trial.cost ?? 0);
    return {
      choice,
      model,
      median: unknown ? null : median(finished),
      total: unknown ? null : own.reduce((sum, trial) => sum + (trial.cost ?? 0), 0),
    };
  });
  const models = [...new Set(options.configurations.map((configuration) => configuration.model))];
  // a model whose trials all finished without a token (a command line that asked no model) needs no price
  const costFree = (model: string) => {
    const choices = new Set(options.configurations.filter((c) => c.model === model).map((c) => c.choice));
    const own = trials.filter((trial) => choices.has(trial.choice));
    return own.length > 0 && own.every((trial) => trial.finished && trial.cost === 0);
  };
  return {
    currency: "USD",
    prices: models.flatMap((model) => priceOf(model, options.prices) ?? []),
    unknownModels: models.filter((model) => priceOf(model, options.prices) === null && !costFree(model)),
    trials: trials.map(({ trialId, cost }) => ({ trialId, cost })),
    configurations,
    total: trials.some((trial) => trial.cost === null)
      ? null
      : trials.reduce((sum, trial) => sum + (trial.cost ?? 0), 0),
  };
}

/** Why the queued trials stop, or null while the budget holds (or there is none). */
export function budgetReached(options: {
  budget: StudyBudget;
  tokensUsed: number;
  cost: number | null;
}): string | null {
  const { budget } = options;
  if (budget.tokens !== null && options.tokensUsed >= budget.tokens)
    return `Study budget reached: ${options.tokensUsed.toLocaleString("en-US")} of ${budget.tokens.toLocaleString("en-US")} tokens used; the queued trials were stopped.`;
  if (budget.money !== null && options.cost !== null && options.cost >= budget.money)
    return `Study budget reached: $${options.cost.toFixed(2)} of $${budget.money.toFixed(2)} spent; the queued trials were stopped.`;
  return null;
}
