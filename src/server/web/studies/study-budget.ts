import { AppError } from "../../core/errors/app-error";
import { effectivePrices, priceOf } from "../../../shared/model-prices";
import { budgetReached, studyCosts } from "../../../shared/study-costs";
import type { CreateStudyInput } from "../../../shared/study-inputs";
import type { StudyView } from "../../../shared/study-schemas";
import type { StudyQueries } from "./studies.queries";
import { announceStudyChange } from "./study-control";
import type { EventPublisher } from "../../core/events/event-stream";

/**
 * A study's budget over all its trials (tokens, or dollars by the price table): when what its trials used
 * reaches it, the trials still waiting for a slot are stopped ("Study budget reached: …"); the running
 * ones finish within their own token budget per trial.
 */
export interface StudyBudgetDeps {
  studies: StudyQueries;
  publish: EventPublisher;
  log: (message: string) => void;
}

/** The price table in force: the shipped defaults with the System page's edits. */
export async function pricesInForce(studies: Pick<StudyQueries, "editedPrices">) {
  return effectivePrices(await studies.editedPrices());
}

/** A money budget needs a price for every model of the study: refused before anything is written. */
export async function checkBudgetPrices(
  deps: Pick<StudyBudgetDeps, "studies">,
  input: CreateStudyInput,
): Promise<void> {
  if (input.budget?.money == null) return;
  const prices = await pricesInForce(deps.studies);
  const unknown = input.configurations
    .map((configuration) => configuration.model ?? "")
    .filter((model, index, all) => all.indexOf(model) === index && priceOf(model, prices) === null);
  if (unknown.length > 0)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "budget.money",
      message: `A budget in dollars needs a price for every model, and ${unknown.map((model) => `"${model}"`).join(", ")} ${unknown.length === 1 ? "has" : "have"} none. Set ${unknown.length === 1 ? "it" : "them"} on the System page, or give the budget in tokens.`,
    });
}

/** What the study's trials used so far, in tokens and in dollars (null: a price is unknown). */
export async function studySpend(studies: Pick<StudyQueries, "editedPrices">, study: StudyView) {
  const costs = studyCosts({
    configurations: study.configurations,
    trials: study.trials,
    prices: await pricesInForce(studies),
  });
  return { tokensUsed: study.trials.reduce((sum, trial) => sum + trial.tokens.total, 0), cost: costs.total };
}

/** Stops the study's waiting trials once its budget is reached; returns how many it stopped. */
export async function enforceStudyBudget(
  deps: StudyBudgetDeps,
  options: { studyId: string; now: Date },
): Promise<number> {
  // every started or finished trial comes here: a study without a budget is not loaded in full
  const row = await deps.studies.state(options.studyId);
  if (row?.state !== "running" || !row.hasBudget) return 0;
  const study = await deps.studies.find(options.studyId);
  if (!study || study.state !== "running") return 0;
  if (study.budget.tokens === null && study.budget.money === null) return 0;
  const reason = budgetReached({ budget: study.budget, ...(await studySpend(deps.studies, study)) });
  if (!reason) return 0;
  const { waiting } = await deps.studies.dispatchState(study.id);
  if (waiting.length === 0) return 0;
  const stopped = await deps.studies.endTrials({
    trialIds: waiting,
    state: "stopped",
    reason,
    at: options.now,
    onlyStates: ["queued"],
  });
  if (stopped.length > 0) {
    deps.log(`studies: ${study.id}: ${reason} (${stopped.length} trial${stopped.length === 1 ? "" : "s"})`);
    await announceStudyChange(deps, { studyId: study.id, projectId: study.projectId, reason, trialIds: stopped });
  }
  return stopped.length;
}
