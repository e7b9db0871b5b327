import type { StudyCounts, TrialView } from "../../shared/study-schemas";
import {
  TRIAL_OUTCOME_LABELS,
  VERDICT_LEVEL_LABELS,
  verdictFraction,
  verdictLevel,
  type TrialOutcome,
} from "../../shared/trial-outcome";
import type { VerdictView } from "../../shared/verdict-summary";
import { themeColors } from "../_lib/theme-colors";

/** How the study page shows a trial's outcome (how the run ended) and its verdict (how many tests passed), apart. */

function hexToRgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function mix(from: string, to: string, t: number): string {
  const a = hexToRgb(from);
  const b = hexToRgb(to);
  const channel = (index: number) => Math.round((a[index] ?? 0) + ((b[index] ?? 0) - (a[index] ?? 0)) * t);
  return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
}

/**
 * A colour on the verdict scale: red (none passed) → amber (half) → green (all passed), from the theme's
 * danger, warn and ok colours; `soft` gives the lighter tints used for text.
 */
export function verdictColor(fraction: number, options: { soft?: boolean } = {}): string {
  const t = Math.min(1, Math.max(0, fraction));
  const [low, middle, high] = options.soft
    ? [themeColors.dangerSoft, themeColors.warnSoft, themeColors.okSoft]
    : [themeColors.danger, themeColors.warn, themeColors.ok];
  return t <= 0.5 ? mix(low, middle, t * 2) : mix(middle, high, (t - 0.5) * 2);
}

/** "all passed", "partial", "none passed" or "no verdict". */
export function verdictLevelLabel(verdict: VerdictView | null): string {
  const level = verdictLevel(verdict);
  return level ? VERDICT_LEVEL_LABELS[level] : "no verdict";
}

/** The text colour of a verdict (muted without one). */
export function verdictTextStyle(verdict: VerdictView | null): { color: string } | undefined {
  const fraction = verdictFraction(verdict);
  return fraction === null ? undefined : { color: verdictColor(fraction, { soft: true }) };
}

export const outcomeStyle: Record<TrialOutcome, string> = {
  completed: "border-muted/50 text-ink",
  "agent-failed": "border-danger-strong/60 text-danger-soft",
  "timed-out": "border-warn-strong/50 text-warn-soft",
  budget: "border-warn-strong/50 text-warn-soft",
  disk: "border-warn-strong/50 text-warn-soft",
  stopped: "border-line text-muted",
  error: "border-fault-strong/60 text-fault-soft",
  interrupted: "border-warn-strong/50 text-warn-soft",
};

/** The outcome's words, or the state while the trial runs ("queued", "agent", …). */
export function outcomeLabel(trial: Pick<TrialView, "state" | "outcome">): string {
  return trial.outcome ? TRIAL_OUTCOME_LABELS[trial.outcome] : trial.state;
}

/** Trials that ended by themselves, and those cut short (stopped by a user, or interrupted by a dead worker). */
export function endedCounts(counts: StudyCounts): { finished: number; stopped: number; interrupted: number } {
  const { outcomes } = counts;
  return {
    finished:
      outcomes.completed +
      outcomes["agent-failed"] +
      outcomes["timed-out"] +
      outcomes.budget +
      outcomes.disk +
      outcomes.error,
    stopped: outcomes.stopped,
    interrupted: outcomes.interrupted,
  };
}
