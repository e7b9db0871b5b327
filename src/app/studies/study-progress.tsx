import type { StudyCounts } from "../../shared/study-schemas";
import { TRIAL_OUTCOME_LABELS, type TrialOutcome } from "../../shared/trial-outcome";
import { endedCounts } from "./verdict-style";

/** Outcome segments of the bar, in order; the verdicts have their own colours on the trials, not here. */
const segments = [
  { key: "completed", color: "bg-muted", text: "text-ink" },
  { key: "agent-failed", color: "bg-danger-strong", text: "text-danger-soft" },
  { key: "timed-out", color: "bg-warn-strong", text: "text-warn-soft" },
  { key: "error", color: "bg-fault-strong", text: "text-fault-soft" },
  { key: "stopped", color: "bg-idle", text: "text-muted" },
  { key: "interrupted", color: "bg-warn-strong/60", text: "text-warn-soft" },
] as const satisfies readonly { key: TrialOutcome; color: string; text: string }[];

/** Trials that ended, however (finished by themselves, stopped or interrupted). */
export function finishedCount(counts: StudyCounts): number {
  return counts.succeeded + counts.failed + counts.error + counts.stopped + counts.interrupted;
}

/**
 * A bar of ended/total trials, coloured by outcome, and the counts spelled out below it: how many
 * finished by themselves, apart from those stopped or interrupted, then each outcome.
 */
export function StudyProgress({ counts }: { counts: StudyCounts }) {
  const ended = finishedCount(counts);
  const { finished, stopped, interrupted } = endedCounts(counts);
  const total = Math.max(counts.total, 1);
  const cut = [stopped > 0 ? `${stopped} stopped` : null, interrupted > 0 ? `${interrupted} interrupted` : null]
    .filter(Boolean)
    .join(", ");
  return (
    <div className="min-w-48">
      <div
        className="flex h-2 overflow-hidden rounded bg-line"
        role="progressbar"
        aria-label="Ended trials"
        aria-valuemin={0}
        aria-valuemax={counts.total}
        aria-valuenow={ended}
        aria-valuetext={`${finished} of ${counts.total} trials finished${cut ? `, ${cut}` : ""}`}
      >
        {segments.map((segment) =>
          counts.outcomes[segment.key] > 0 ? (
            <div
              key={segment.key}
              className={`h-full ${segment.color}`}
              style={{ width: `${(counts.outcomes[segment.key] / total) * 100}%` }}
            />
          ) : null,
        )}
        {counts.running > 0 ? (
          <div className="h-full animate-pulse bg-accent/60" style={{ width: `${(counts.running / total) * 100}%` }} />
        ) : null}
      </div>
      <p className="mt-1 text-xs text-muted" data-testid="study-counts">
        <span className="text-ink">
          {finished}/{counts.total} finished
        </span>
        {segments.map((segment) =>
          counts.outcomes[segment.key] > 0 ? (
            <span key={segment.key} className={`ml-2 ${segment.text}`}>
              {counts.outcomes[segment.key]} {TRIAL_OUTCOME_LABELS[segment.key]}
            </span>
          ) : null,
        )}
        {counts.running > 0 ? <span className="ml-2 text-accent">{counts.running} running</span> : null}
        {counts.queued > 0 ? <span className="ml-2">{counts.queued} queued</span> : null}
      </p>
    </div>
  );
}
