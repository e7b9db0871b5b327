import type { ReportAttempt, ReportTrial } from "../../../shared/study-report";
import {
  TRIAL_OUTCOME_LABELS,
  VERDICT_LEVEL_LABELS,
  trialOutcome,
  verdictCount,
  verdictLevel,
  type TrialOutcome,
} from "../../../shared/trial-outcome";
import { escapeInline } from "./markdown-text";

/**
 * A trial's outcome and verdict as the reports write them: the run's outcome in the product's words
 * (a report written before `outcome` existed derives it from the stored state), and the verdict level.
 */

/** The outcome the report records, or the one its state and error imply; null while the trial runs. */
export function reportOutcome(trial: Pick<ReportTrial, "state" | "error"> & { outcome?: TrialOutcome | null }) {
  return trial.outcome ?? trialOutcome({ state: trial.state, error: trial.error });
}

/** "completed", "agent failed", "timed out", …; the state itself ("queued", "agent") while it runs. */
export function outcomeText(trial: Pick<ReportTrial, "state" | "error"> & { outcome?: TrialOutcome | null }): string {
  const outcome = reportOutcome(trial);
  return outcome ? TRIAL_OUTCOME_LABELS[outcome] : trial.state;
}

/** "all passed", "partial", "none passed" or "no verdict". */
export function verdictLevelText(trial: Pick<ReportTrial, "verdict">): string {
  const level = verdictLevel(trial.verdict);
  return level ? VERDICT_LEVEL_LABELS[level] : "no verdict";
}

function attemptLine(options: { trial: ReportTrial; attempt: ReportAttempt; label: string }): string {
  const { attempt } = options;
  const verdict = verdictCount(attempt.verdict);
  const measured = [
    verdict ? `${verdict} tests passed (${verdictLevelText(attempt)})` : "no verdict",
    attempt.agentSeconds === null ? null : `${attempt.agentSeconds.toFixed(1)} agent seconds`,
    attempt.tokens.total > 0 ? `${attempt.tokens.total.toLocaleString("en-US")} tokens` : null,
  ].filter((part): part is string => part !== null);
  const error = attempt.error ? `; ${escapeInline(attempt.error)}` : "";
  return (
    `- ${options.label}, attempt ${attempt.attempt} (configuration ${attempt.choice}: ${escapeInline(attempt.model) || "—"}, ` +
    `effort ${attempt.reasoningEffort}): ${outcomeText(attempt)}, ${measured.join(", ")}${error}`
  );
}

/** The attempts a retry replaced, one line each; nothing when no trial was retried. */
export function earlierAttemptsSection(options: {
  trials: ReportTrial[];
  label: (trial: ReportTrial) => string;
}): string[] {
  const lines: string[] = [];
  for (const trial of options.trials)
    for (const attempt of trial.earlierAttempts ?? [])
      lines.push(
        attemptLine({ trial, attempt, label: `Trial ${options.label(trial).replace(/ \(attempt \d+\)$/, "")}` }),
      );
  return lines.length === 0 ? [] : ["## Earlier attempts", "", ...lines];
}
