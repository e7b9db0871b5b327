"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReviewAgainst, ReviewSummaryView } from "../../../../../shared/review-schemas";
import { focusRing } from "../../../../_components/ui";
import { useTRPC } from "../../../../_lib/trpc";
import { TrialStateBadge } from "../../../state-badge";
import { formatVerdict } from "../../../study-format";
import { verdictTextStyle } from "../../../verdict-style";

const linkClass = `text-accent hover:underline ${focusRing}`;

/**
 * Where the trial sits among attempts: a follow-up names the trial it continued (a link) and the feedback its
 * agent was given as the prompt; a trial with follow-ups lists them with their verdicts.
 */
export function FollowUpFacts({ summary }: { summary: ReviewSummaryView }) {
  if (!summary.parent && summary.followUps.length === 0) return null;
  return (
    <section aria-label="Follow-ups" className="grid gap-2 rounded-md border border-line p-3 text-sm">
      {summary.parent ? (
        <p data-testid="review-parent">
          Follow-up of{" "}
          <Link href={`/studies/${summary.studyId}/trials/${summary.parent.id}`} className={linkClass} prefetch={false}>
            {summary.parent.name}
          </Link>
          : its agent continued that trial&apos;s conversation with the review feedback below.
        </p>
      ) : null}
      {summary.parent ? <FollowUpFeedback studyId={summary.studyId} trialId={summary.trialId} /> : null}
      {summary.followUps.length > 0 ? (
        <div>
          <h2 className="text-xs uppercase tracking-wide text-muted">Follow-ups with review feedback</h2>
          <ul className="mt-1 grid gap-1" data-testid="review-follow-ups">
            {summary.followUps.map((followUp) => (
              <li key={followUp.id} className="flex flex-wrap items-center gap-2" data-testid="review-follow-up">
                <Link href={`/studies/${summary.studyId}/trials/${followUp.id}`} className={linkClass} prefetch={false}>
                  {followUp.name}
                </Link>
                <TrialStateBadge state={followUp.state} />
                <span className="tabular-nums" style={verdictTextStyle(followUp.verdict)}>
                  {formatVerdict(followUp.verdict)}
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}

/** The prompt the follow-up's agent read (the study's trial view carries it), folded. */
function FollowUpFeedback({ studyId, trialId }: { studyId: string; trialId: string }) {
  const trpc = useTRPC();
  const study = useQuery(trpc.studies.get.queryOptions({ studyId }));
  const feedback = study.data?.trials.find((trial) => trial.id === trialId)?.feedback ?? null;
  if (!feedback) return null;
  return (
    <details data-testid="review-feedback">
      <summary className={`cursor-pointer text-muted ${focusRing}`}>The feedback (its prompt)</summary>
      <pre className="mt-1 max-h-60 overflow-auto whitespace-pre-wrap break-words rounded bg-canvas p-2 text-xs">
        {feedback}
      </pre>
    </details>
  );
}

/** A follow-up's diff against its parent's result (only what the feedback changed) or against the snapshot. */
export function AgainstToggle({
  against,
  onChange,
}: {
  against: ReviewAgainst;
  onChange: (next: ReviewAgainst) => void;
}) {
  const option = (value: ReviewAgainst, label: string) => (
    <button
      type="button"
      aria-pressed={against === value}
      onClick={() => onChange(value)}
      className={`rounded px-2 py-0.5 text-xs ${against === value ? "bg-line text-ink" : "text-muted hover:text-ink"} ${focusRing}`}
    >
      {label}
    </button>
  );
  return (
    <div role="group" aria-label="Diff against" className="flex items-center gap-1 rounded border border-line p-0.5">
      {option("parent", "Against parent")}
      {option("snapshot", "Against snapshot")}
    </div>
  );
}
