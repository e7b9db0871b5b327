import type { StudyCounts } from "../../shared/study-schemas";

const segments = [
  { key: "succeeded", label: "succeeded", color: "bg-ok-strong", text: "text-ok-soft" },
  { key: "failed", label: "failed", color: "bg-danger-strong", text: "text-danger-soft" },
  { key: "error", label: "error", color: "bg-fault-strong", text: "text-fault-soft" },
  { key: "stopped", label: "stopped", color: "bg-idle", text: "text-muted" },
  { key: "interrupted", label: "interrupted", color: "bg-warn-strong", text: "text-warn-soft" },
  { key: "running", label: "running", color: "bg-accent/60 animate-pulse", text: "text-accent" },
] as const satisfies readonly { key: keyof StudyCounts; label: string; color: string; text: string }[];

export function finishedCount(counts: StudyCounts): number {
  return counts.succeeded + counts.failed + counts.error + counts.stopped + counts.interrupted;
}

/** A bar of finished/total trials, coloured by outcome, with the counts spelled out below it. */
export function StudyProgress({ counts }: { counts: StudyCounts }) {
  const finished = finishedCount(counts);
  const total = Math.max(counts.total, 1);
  return (
    <div className="min-w-48">
      <div
        className="flex h-2 overflow-hidden rounded bg-line"
        role="progressbar"
        aria-label="Finished trials"
        aria-valuemin={0}
        aria-valuemax={counts.total}
        aria-valuenow={finished}
        aria-valuetext={`${finished} of ${counts.total} trials finished`}
      >
        {segments.map((segment) =>
          counts[segment.key] > 0 ? (
            <div
              key={segment.key}
              className={`h-full ${segment.color}`}
              style={{ width: `${(counts[segment.key] / total) * 100}%` }}
            />
          ) : null,
        )}
      </div>
      <p className="mt-1 text-xs text-muted">
        <span className="text-ink">
          {finished}/{counts.total}
        </span>
        {segments.map((segment) =>
          counts[segment.key] > 0 ? (
            <span key={segment.key} className={`ml-2 ${segment.text}`}>
              {counts[segment.key]} {segment.label}
            </span>
          ) : null,
        )}
        {counts.queued > 0 ? <span className="ml-2">{counts.queued} queued</span> : null}
      </p>
    </div>
  );
}
