import type { VerdictView } from "../../shared/verdict-summary";
import type { StudyState, TrialState } from "../../shared/vocabulary";

/** `23/23`, `13/23`, `pass`/`fail` for exit-code verdicts, `—` for none. */
export function formatVerdict(verdict: VerdictView | null): string {
  if (!verdict) return "—";
  if (verdict.source !== "exit-code" && verdict.passed !== null && verdict.total !== null)
    return `${verdict.passed}/${verdict.total}`;
  return verdict.ok ? "pass" : "fail";
}

/** "0/23 passed (tap)", or "fail (exit-code)". */
export function formatBaseline(verdict: VerdictView | null): string {
  if (!verdict) return "none";
  const counted = verdict.source !== "exit-code" && verdict.passed !== null && verdict.total !== null;
  return counted
    ? `${verdict.passed}/${verdict.total} passed (${verdict.source})`
    : `${verdict.ok ? "pass" : "fail"} (${verdict.source})`;
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

export const studyStateStyle: Record<StudyState, string> = {
  preflight: "border-sky-500/50 text-sky-300",
  refused: "border-red-500/60 text-red-300",
  running: "border-accent/60 text-accent",
  stopping: "border-amber-500/50 text-amber-300",
  done: "border-emerald-500/50 text-emerald-300",
  stopped: "border-line text-muted",
};

export const trialStateStyle: Record<TrialState, string> = {
  queued: "border-line text-muted",
  preparing: "border-sky-500/50 text-sky-300",
  agent: "border-accent/60 text-accent",
  evaluating: "border-violet-500/50 text-violet-300",
  succeeded: "border-emerald-500/50 text-emerald-300",
  failed: "border-red-500/60 text-red-300",
  error: "border-orange-500/60 text-orange-300",
  stopped: "border-line text-muted",
  interrupted: "border-amber-500/50 text-amber-300",
};

/** Focus ring for custom controls (buttons, rows, links) so keyboard users see where they are. */
export const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent";
