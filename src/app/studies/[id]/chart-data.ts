import { trialHasTokens } from "../../../shared/study-aggregates";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { verdictFraction } from "../../../shared/trial-outcome";
import type { VerdictView } from "../../../shared/verdict-summary";
import { configurationName, trialNumber } from "../../../shared/domain-names";

/** What the study page's charts draw, computed apart from recharts so it can be tested. */

export interface TrialChartPoint {
  trialId: string;
  /** The configuration's label, after the trial's number when its configuration ran more than once: "2.1 gpt-5 · high". */
  label: string;
  choice: number;
  /** Tests passed (1 or 0 for a verdict read from the exit code only); null without a verdict. */
  passed: number | null;
  total: number | null;
  /** passed / total, for the colour; null without a verdict. */
  fraction: number | null;
  tokens: number | null;
  seconds: number | null;
}

export interface ConfigurationChartPoint {
  choice: number;
  label: string;
  /** Trials of this configuration with a verdict. */
  judged: number;
  /** Mean tests passed over those trials; null when none has a verdict. */
  meanPassed: number | null;
  /** [min, max] tests passed, for the range bar. */
  range: [number, number] | null;
  total: number | null;
  fraction: number | null;
}

function counted(verdict: VerdictView | null): { passed: number; total: number } | null {
  if (!verdict) return null;
  if (verdict.source !== "exit-code" && verdict.total !== null)
    return { passed: verdict.passed ?? 0, total: verdict.total };
  return { passed: verdict.ok ? 1 : 0, total: 1 };
}

/** One point per trial, in configuration then run order. */
export function trialChartPoints(options: {
  trials: readonly TrialView[];
  configurations: readonly ConfigurationView[];
}): TrialChartPoint[] {
  const labels = new Map(options.configurations.map((configuration) => [configuration.choice, configuration.label]));
  const runs = new Map<number, number>();
  for (const trial of options.trials) runs.set(trial.choice, (runs.get(trial.choice) ?? 0) + 1);
  return [...options.trials]
    .sort((a, b) => a.choice - b.choice || a.repeat - b.repeat)
    .map((trial) => {
      const label = labels.get(trial.choice) ?? configurationName(trial.choice);
      const tests = counted(trial.verdict);
      return {
        trialId: trial.id,
        label: (runs.get(trial.choice) ?? 0) > 1 ? `${trialNumber(trial)} ${label}` : label,
        choice: trial.choice,
        passed: tests?.passed ?? null,
        total: tests?.total ?? null,
        fraction: verdictFraction(trial.verdict),
        tokens: trialHasTokens(trial) ? trial.tokens.total : null,
        seconds: trial.agentSeconds,
      };
    });
}

/** One point per configuration: the mean and range of tests passed over its judged trials. */
export function configurationChartPoints(options: {
  trials: readonly TrialView[];
  configurations: readonly ConfigurationView[];
}): ConfigurationChartPoint[] {
  const labels = new Map(options.configurations.map((configuration) => [configuration.choice, configuration.label]));
  return options.configurations.map((configuration) => {
    const judged = options.trials
      .filter((trial) => trial.choice === configuration.choice)
      .flatMap((trial) => {
        const tests = counted(trial.verdict);
        return tests ? [tests] : [];
      });
    const passed = judged.map((tests) => tests.passed);
    const total = judged.length === 0 ? null : Math.max(...judged.map((tests) => tests.total));
    const meanPassed = passed.length === 0 ? null : passed.reduce((sum, value) => sum + value, 0) / passed.length;
    return {
      choice: configuration.choice,
      label: labels.get(configuration.choice) ?? configurationName(configuration.choice),
      judged: judged.length,
      meanPassed,
      range: passed.length === 0 ? null : [Math.min(...passed), Math.max(...passed)],
      total,
      fraction: meanPassed === null || !total ? null : meanPassed / total,
    };
  });
}
