import type { VerdictView } from "../../shared/verdict-summary";
import type { TrialState } from "../../shared/vocabulary";
import type { ShownStudyState } from "../../shared/study-state";

/** `23/23`, `13/23`, `pass`/`fail` for exit-code verdicts, `—` for none. */
export function formatVerdict(verdict: VerdictView | null): string {
  if (!verdict) return "—";
  if (verdict.source !== "exit-code" && verdict.passed !== null && verdict.total !== null)
    return `${verdict.passed}/${verdict.total}`;
  return verdict.ok ? "pass" : "fail";
}

/**
 * The baseline in plain words: "0/23 tests passed", or, for a test command whose output names no counts,
 * "the tests failed (judged by the exit code)".
 */
export function formatBaseline(verdict: VerdictView | null): string {
  if (!verdict) return "none";
  const counted = verdict.source !== "exit-code" && verdict.passed !== null && verdict.total !== null;
  return counted
    ? `${verdict.passed}/${verdict.total} tests passed`
    : `the tests ${verdict.ok ? "passed" : "failed"} (judged by the exit code)`;
}

/** The fraction of tests passed, for sorting; exit-code verdicts count as 1 or 0; none sorts last. */
export function verdictScore(verdict: VerdictView | null): number {
  if (!verdict) return -1;
  if (verdict.source !== "exit-code" && verdict.passed !== null && verdict.total) return verdict.passed / verdict.total;
  return verdict.ok ? 1 : 0;
}

export function formatSeconds(seconds: number | null): string {
  return seconds === null ? "—" : seconds.toFixed(1);
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
export function formatCount(value: number | null): string {
  return value === null ? "—" : integer.format(value);
}

export function formatPercent(value: number | null): string {
  return value === null ? "—" : `${Math.round(value * 100)}%`;
}

/** An image, snapshot or sha id cut to 12 characters (without a `sha256:` prefix). */
export function shortId(id: string | null, length = 12): string {
  if (!id) return "—";
  return id.replace(/^sha256:/, "").slice(0, length);
}

export function formatDateTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** 75 → "1:15", 3725 → "1:02:05". */
export function formatElapsed(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

export const studyStateStyle: Record<ShownStudyState, string> = {
  preflight: "border-info-strong/50 text-info-soft",
  refused: "border-danger-strong/60 text-danger-soft",
  running: "border-accent/60 text-accent",
  stopping: "border-warn-strong/50 text-warn-soft",
  done: "border-ok-strong/50 text-ok-soft",
  stopped: "border-line text-muted",
  interrupted: "border-warn-strong/50 text-warn-soft",
};

/** The stored state as the product says it: `succeeded` → "completed", `failed` → "agent failed". */
export function trialStateLabel(state: TrialState): string {
  return state === "succeeded" ? "completed" : state === "failed" ? "agent failed" : state;
}

export const trialStateStyle: Record<TrialState, string> = {
  queued: "border-line text-muted",
  preparing: "border-info-strong/50 text-info-soft",
  agent: "border-accent/60 text-accent",
  evaluating: "border-judging-strong/50 text-judging-soft",
  // a run that completed, whatever its verdict: neutral, the verdict has its own colour scale
  succeeded: "border-muted/50 text-ink",
  failed: "border-danger-strong/60 text-danger-soft",
  error: "border-fault-strong/60 text-fault-soft",
  stopped: "border-line text-muted",
  interrupted: "border-warn-strong/50 text-warn-soft",
};
