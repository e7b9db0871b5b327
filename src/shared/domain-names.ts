/**
 * The one name each thing has on every page and in every report (issue 26: a trial was "Trial 3.1", "Trial #3",
 * "#3.1" and "Trial #2 command (repeat 1)" on different pages). test/ui-terms.test.ts holds the UI to these.
 */

/** "3.2": configuration 3, repeat 2. */
export function trialNumber(trial: { choice: number; repeat: number }): string {
  return `${trial.choice}.${trial.repeat}`;
}

/** "Trial 3.2". */
export function trialName(trial: { choice: number; repeat: number }): string {
  return `Trial ${trialNumber(trial)}`;
}

/** "Trial 3.2 · gpt-5 · low": the trial with its configuration's label, where the configuration is not beside it. */
export function trialTitle(trial: { choice: number; repeat: number }, configurationLabel: string | undefined): string {
  return configurationLabel ? `${trialName(trial)} · ${configurationLabel}` : trialName(trial);
}

/** "Configuration 3". */
export function configurationName(choice: number): string {
  return `Configuration ${choice}`;
}
