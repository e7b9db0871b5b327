import { z } from "zod";
import type { VerdictView } from "./verdict-summary";
import type { TrialState } from "./vocabulary";

/**
 * What the product says about a trial, in two separate words:
 * - its **outcome**: how the run ended, whatever the tests said (completed, agent failed, timed out,
 *   stopped: budget, stopped: disk, stopped, error, interrupted);
 * - its **verdict level**: how many of the captured tests passed (all passed, partial, none passed).
 * The stored state machine keeps `succeeded` for a run whose agent finished and was evaluated; it is
 * shown and reported as `completed`, because a 0/23 run did not succeed at anything but running.
 */

export const TRIAL_OUTCOMES = [
  "completed",
  "agent-failed",
  "timed-out",
  "budget",
  "disk",
  "stopped",
  "error",
  "interrupted",
] as const;
export const trialOutcomeSchema = z.enum(TRIAL_OUTCOMES);
export type TrialOutcome = z.infer<typeof trialOutcomeSchema>;

export const TRIAL_OUTCOME_LABELS: Record<TrialOutcome, string> = {
  completed: "completed",
  "agent-failed": "agent failed",
  "timed-out": "timed out",
  budget: "stopped: budget",
  disk: "stopped: disk",
  stopped: "stopped",
  error: "error",
  interrupted: "interrupted",
};

/**
 * Outcomes of a run that ended by itself (not cut short by a user or a dead worker). `budget`: the model
 * gateway stopped the agent when its tokens reached the trial's budget; its work so far was evaluated.
 * `disk`: the agent or the test command wrote past the project's disk budget per trial and was stopped
 * (an agent's work is then not evaluated: copying it for the test command would double what it wrote).
 */
export const FINISHED_OUTCOMES: readonly TrialOutcome[] = [
  "completed",
  "agent-failed",
  "timed-out",
  "budget",
  "disk",
  "error",
];

/**
 * A trial's outcome from its state and what was recorded: `recorded` is the outcome the worker
 * reported (null for attempts recorded before it existed); a timed-out run is then recognised by its
 * error. Null while the trial has not ended.
 */
export function trialOutcome(options: {
  state: TrialState;
  recorded?: string | null;
  error?: string | null;
}): TrialOutcome | null {
  const { state, error } = options;
  switch (state) {
    case "succeeded":
      return "completed";
    case "stopped":
    case "interrupted":
      return state;
    case "failed":
    case "error": {
      const recorded = trialOutcomeSchema.safeParse(options.recorded);
      if (recorded.success) return recorded.data;
      if (error && /time limit/i.test(error)) return "timed-out";
      return state === "failed" ? "agent-failed" : "error";
    }
    default:
      return null;
  }
}

export const VERDICT_LEVELS = ["all-passed", "partial", "none-passed"] as const;
export type VerdictLevel = (typeof VERDICT_LEVELS)[number];
export const VERDICT_LEVEL_LABELS: Record<VerdictLevel, string> = {
  "all-passed": "all passed",
  partial: "partial",
  "none-passed": "none passed",
};

/** Whether the verdict counted tests (rather than reading only the test command's exit code). */
function counted(verdict: VerdictView): verdict is VerdictView & { total: number } {
  return verdict.source !== "exit-code" && verdict.total !== null;
}

/**
 * The fraction of tests passed, 0..1: passed / total for a counted verdict; 1 or 0 for a verdict read
 * from the exit code only. Null without a verdict.
 */
export function verdictFraction(verdict: VerdictView | null): number | null {
  if (!verdict) return null;
  if (counted(verdict)) return verdict.total > 0 ? Math.min(1, (verdict.passed ?? 0) / verdict.total) : 0;
  return verdict.ok ? 1 : 0;
}

/** All passed, partial or none passed; null without a verdict. Zero tests counted is "none passed". */
export function verdictLevel(verdict: VerdictView | null): VerdictLevel | null {
  const fraction = verdictFraction(verdict);
  if (fraction === null) return null;
  if (fraction >= 1) return "all-passed";
  return fraction <= 0 ? "none-passed" : "partial";
}

/** `23/23`, `13/23`, `pass`/`fail` for an exit-code verdict, null for none. */
export function verdictCount(verdict: VerdictView | null): string | null {
  if (!verdict) return null;
  if (counted(verdict)) return `${verdict.passed ?? 0}/${verdict.total}`;
  return verdict.ok ? "pass" : "fail";
}

/** "0/23 tests passed", "tests passed (exit code 0)", "no verdict". */
export function describeVerdict(verdict: VerdictView | null): string {
  if (!verdict) return "no verdict";
  if (counted(verdict)) return `${verdict.passed ?? 0}/${verdict.total} tests passed`;
  return verdict.ok ? "the test command passed" : "the test command failed";
}

/**
 * The trial log's last line: the outcome, then the verdict or the reason, e.g.
 * "Trial completed: 0/23 tests passed", "Trial timed out: Stopped after 60 s: the agent time limit."
 */
export function trialEndLine(options: {
  outcome: TrialOutcome;
  verdict: VerdictView | null;
  reason: string | null;
}): string {
  const { outcome, verdict, reason } = options;
  const label = TRIAL_OUTCOME_LABELS[outcome];
  const judged = verdict ? describeVerdict(verdict) : outcome === "completed" ? "no verdict" : null;
  const detail = reason ? (judged && verdict ? `${reason} (${judged})` : reason) : judged;
  return `Trial ${label}${detail ? `: ${detail}` : ""}`;
}
