import { meanFractionPassed, passRateInterval } from "./configuration-comparison";
import type { ReportTrial, StudyAggregate } from "./study-report";
import { isTerminalTrialState } from "./vocabulary";

/**
 * The fields of a trial the aggregates read; a full `ReportTrial` fits. `parentTrialId` marks a follow-up
 * attempt (review feedback sent back to the agent), which the statistics leave out: they compare first attempts.
 */
export type AggregatableTrial = Pick<ReportTrial, "choice" | "state" | "verdict" | "agentSeconds" | "tokens"> & {
  parentTrialId?: string | null | undefined;
};

/** The first attempts: a follow-up (a trial continued with feedback) is no sample of its configuration. */
export function firstAttempts<T extends { parentTrialId?: string | null | undefined }>(trials: readonly T[]): T[] {
  return trials.filter((trial) => !trial.parentTrialId);
}

/** Median of the values; the mean of the two middle ones for an even count; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] as number;
  if (sorted.length % 2 === 1) return upper;
  return ((sorted[middle - 1] as number) + upper) / 2;
}

function spread(values: readonly number[]): { min: number; max: number } | null {
  if (values.length === 0) return null;
  return { min: Math.min(...values), max: Math.max(...values) };
}

export function isTerminalTrial(trial: Pick<ReportTrial, "state">): boolean {
  return isTerminalTrialState(trial.state);
}

/**
 * The trial passed: its verdict is ok and counted at least one test, or the verdict is the test
 * command's exit code and that was a success (no counts to read).
 */
export function trialPassedAll(trial: Pick<ReportTrial, "verdict">): boolean {
  const verdict = trial.verdict;
  if (!verdict?.ok) return false;
  if (verdict.source === "exit-code") return true;
  return verdict.total !== null && verdict.total > 0;
}

/**
 * Whether the trial's token count is a measurement: the agent ran (it has agent seconds) or it reported
 * tokens. A trial that failed before its agent started has zeros that mean "not measured".
 */
export function trialHasTokens(trial: Pick<ReportTrial, "agentSeconds" | "tokens">): boolean {
  return trial.agentSeconds !== null || trial.tokens.total > 0;
}

/**
 * Per-configuration numbers over its trials, in the order of `configurations`. Medians and spreads
 * are over finished trials that have the value; trials naming no listed configuration are ignored.
 */
export function aggregateByConfiguration(options: {
  configurations: readonly { choice: number }[];
  trials: readonly AggregatableTrial[];
}): StudyAggregate[] {
  return options.configurations.map(({ choice }) => {
    const trials = firstAttempts(options.trials).filter((trial) => trial.choice === choice);
    const finished = trials.filter(isTerminalTrial);
    const passedAll = finished.filter(trialPassedAll).length;
    const agentSeconds = finished.flatMap((trial) => (trial.agentSeconds === null ? [] : [trial.agentSeconds]));
    const tokens = finished.filter(trialHasTokens).map((trial) => trial.tokens.total);
    const testsPassed = finished.flatMap((trial) => (trial.verdict?.passed == null ? [] : [trial.verdict.passed]));
    const fractions = finished.flatMap(({ verdict }) =>
      verdict?.passed == null || !verdict.total ? [] : [verdict.passed / verdict.total],
    );
    const fraction = meanFractionPassed(fractions);
    return {
      choice,
      trials: trials.length,
      finished: finished.length,
      passedAll,
      passRate: finished.length === 0 ? null : passedAll / finished.length,
      passRateInterval: passRateInterval(passedAll, finished.length),
      meanFractionPassed: fraction.mean,
      meanFractionInterval: fraction.interval,
      medianAgentSeconds: median(agentSeconds),
      medianTokens: median(tokens),
      agentSeconds: spread(agentSeconds),
      tokens: spread(tokens),
      medianTestsPassed: median(testsPassed),
    };
  });
}
