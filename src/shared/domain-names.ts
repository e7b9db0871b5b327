/**
 * The one name each thing has on every page and in every report (issue 26: a trial was "Trial 3.1", "Trial #3",
 * "#3.1" and "Trial #2 command (repeat 1)" on different pages). test/ui-terms.test.ts holds the UI to these.
 */

/**
 * A trial's place in its study: configuration, repeat, and for a follow-up attempt (review feedback sent
 * back to the agent) which follow-up of which trial it is: [] for a first attempt, [1] for the first
 * follow-up of a trial, [1, 2] for the second follow-up of that one.
 */
export interface TrialPlace {
  choice: number;
  repeat: number;
  followUpPath?: readonly number[];
}

/** "3.2": configuration 3, repeat 2; "3.2.1": the first follow-up of 3.2; "3.2.1.1": a follow-up of 3.2.1. */
export function trialNumber(trial: TrialPlace): string {
  return [trial.choice, trial.repeat, ...(trial.followUpPath ?? [])].join(".");
}

/** "Trial 3.2", "Trial 3.2.1". */
export function trialName(trial: TrialPlace): string {
  return `Trial ${trialNumber(trial)}`;
}

/** Orders trials as the study page lists them: by configuration, repeat, then each follow-up right under its parent. */
export function compareTrialPlaces(a: TrialPlace, b: TrialPlace): number {
  if (a.choice !== b.choice) return a.choice - b.choice;
  if (a.repeat !== b.repeat) return a.repeat - b.repeat;
  const left = a.followUpPath ?? [];
  const right = b.followUpPath ?? [];
  for (let index = 0; index < Math.min(left.length, right.length); index += 1)
    if (left[index] !== right[index]) return (left[index] ?? 0) - (right[index] ?? 0);
  return left.length - right.length;
}

/** "Trial 3.2 · gpt-5 · low": the trial with its configuration's label, where the configuration is not beside it. */
export function trialTitle(trial: TrialPlace, configurationLabel: string | undefined): string {
  return configurationLabel ? `${trialName(trial)} · ${configurationLabel}` : trialName(trial);
}

/** "Configuration 3". */
export function configurationName(choice: number): string {
  return `Configuration ${choice}`;
}
