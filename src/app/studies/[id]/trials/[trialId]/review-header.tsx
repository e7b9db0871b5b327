"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import type { ReviewSummaryView } from "../../../../../shared/review-schemas";
import { LiveIndicator } from "../../../../_components/live-indicator";
import { dangerBoxClass, focusRing, secondaryButtonClass, smallButtonClass } from "../../../../_components/ui";
import { TrialStateBadge } from "../../../state-badge";
import { formatCount, formatSeconds, formatVerdict } from "../../../study-format";
import { ContinueInSession } from "../../continue-session";
import { KeepResultActions } from "../../keep-result-actions";
import { ContinueWithFeedback } from "./continue-feedback";
import { FollowUpFacts } from "./follow-up-facts";
import type { ReviewComments } from "./use-review-comments";

const linkClass = `text-accent hover:underline ${focusRing}`;

/** The trial under review: label, outcome and verdict, tokens, seconds, totals; the patch, study and compare links. */
export function ReviewHeader({ summary, comments }: { summary: ReviewSummaryView; comments: ReviewComments }) {
  const { verdict, totals } = summary;
  return (
    <header className="mb-4 space-y-3">
      {/* not prefetched: four page payloads rendered on the server while this page waits for its own data */}
      <nav aria-label="Breadcrumb" className="text-sm text-muted">
        <Link href={`/studies/${summary.studyId}`} className={linkClass} prefetch={false}>
          ← Study
        </Link>
        {" · "}
        <Link
          href={`/studies/${summary.studyId}/compare?trials=${summary.trialId}`}
          className={linkClass}
          prefetch={false}
        >
          Compare with other trials
        </Link>
      </nav>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-semibold tracking-tight">{summary.configuration.label}</h1>
            <span data-testid="review-state" data-state={summary.state}>
              <TrialStateBadge state={summary.state} />
            </span>
            {summary.live ? <LiveIndicator /> : null}
          </div>
          <dl className="mt-2 flex flex-wrap gap-x-6 gap-y-1 text-sm">
            <HeaderFact label="Tests">
              <span
                data-testid="review-verdict"
                className={verdict?.ok ? "text-ok-soft" : verdict ? "text-danger-soft" : "text-muted"}
              >
                {formatVerdict(verdict)}
              </span>
            </HeaderFact>
            <HeaderFact label="Tokens">{formatCount(summary.tokens.total)}</HeaderFact>
            <HeaderFact label="Agent seconds">{formatSeconds(summary.agentSeconds)}</HeaderFact>
            <HeaderFact label="Changes">
              {totals ? (
                <>
                  {formatCount(totals.files)} file{totals.files === 1 ? "" : "s"}{" "}
                  <span className="text-ok-soft">+{formatCount(totals.insertions)}</span>{" "}
                  <span className="text-danger-soft">−{formatCount(totals.deletions)}</span>
                </>
              ) : (
                "—"
              )}
            </HeaderFact>
            {summary.attempt > 1 ? <HeaderFact label="Attempt">{summary.attempt}</HeaderFact> : null}
          </dl>
        </div>
        <div className="ml-auto flex flex-col items-end gap-2">
          <PatchAction summary={summary} />
          <ContinueWithFeedback summary={summary} comments={comments} />
          <ContinueInSession studyId={summary.studyId} trialId={summary.trialId} prominent />
          <KeepResultActions studyId={summary.studyId} trialId={summary.trialId} />
        </div>
      </div>
      <FollowUpFacts summary={summary} />
      {summary.error ? (
        <div role="alert" className={`whitespace-pre-wrap ${dangerBoxClass}`}>
          {summary.error}
        </div>
      ) : null}
    </header>
  );
}

function HeaderFact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline gap-1.5">
      <dt className="text-xs uppercase tracking-wide text-muted">{label}</dt>
      <dd className="tabular-nums">{children}</dd>
    </div>
  );
}

/** The trial's changes as a patch, "No changes" when there are none, or "No patch yet" without a workspace. */
function PatchAction({ summary }: { summary: ReviewSummaryView }) {
  const { totals } = summary;
  return (
    <>
      {totals?.files === 0 ? (
        <span className="text-sm text-muted" data-testid="review-no-changes">
          No changes
        </span>
      ) : summary.workspaceId ? (
        <a href={`/api/trials/${summary.trialId}/patch`} download className={`${secondaryButtonClass} ${focusRing}`}>
          Download patch
        </a>
      ) : (
        <span className={`${smallButtonClass} opacity-40`} aria-disabled="true">
          No patch yet
        </span>
      )}
    </>
  );
}
