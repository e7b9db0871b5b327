"use client";
import { useCallback, useMemo, useState } from "react";
import type { ReviewAgainst, ReviewSummaryView } from "../../../../../shared/review-schemas";
import { wideClass } from "../../_review/wide";
import { TestSteeringWarning } from "../../test-steering-warning";
import { CommentsPanel } from "./comments-panel";
import { AgainstToggle } from "./follow-up-facts";
import { ReviewHeader } from "./review-header";
import { ReviewTabs, type ReviewTab } from "./review-tabs";
import { ReviewWorkspace, type ReviewFiles } from "./review-workspace";
import { TestsPanel } from "./tests-panel";
import { TranscriptPanel } from "./transcript-panel";
import { useReviewComments } from "./use-review-comments";

/** The review of one trial: header; the changed files beside the diff, the transcript or the tests. */
export function ReviewView({ summary, opened }: { summary: ReviewSummaryView; opened: string | true }) {
  const { trialId, studyId } = summary;
  // a follow-up's changes show against its parent's result first: what the feedback changed
  const [against, setAgainst] = useState<ReviewAgainst>(summary.parent ? "parent" : "snapshot");
  const subject = useMemo(() => ({ trialId, ...(against === "parent" ? { against } : {}) }), [trialId, against]);
  const [tab, setTab] = useState<ReviewTab>("changes");
  const showChanges = useCallback(() => setTab("changes"), []);
  const comments = useReviewComments(summary, showChanges);
  return (
    <div className={wideClass}>
      <ReviewHeader summary={summary} comments={comments} />
      <TestSteeringWarning items={summary.testSteering} />
      <ReviewWorkspace
        subject={subject}
        opened={opened}
        active={tab === "changes"}
        onOpenFile={showChanges}
        comments={comments}
        toolbarExtra={summary.parent ? <AgainstToggle against={against} onChange={setAgainst} /> : null}
        emptyMessage={(files, filter) => emptyMessage({ summary, files, filter })}
        frame={(changes) => (
          <ReviewTabs tab={tab} onTab={setTab} counts={{ comments: comments.comments.length }}>
            {tab === "changes" ? (
              changes
            ) : tab === "transcript" ? (
              <TranscriptPanel trialId={trialId} attempts={summary.attempt} />
            ) : tab === "comments" ? (
              <CommentsPanel comments={comments} />
            ) : (
              <TestsPanel studyId={studyId} trialId={trialId} />
            )}
          </ReviewTabs>
        )}
      />
    </div>
  );
}

function emptyMessage({
  summary,
  files,
  filter,
}: {
  summary: ReviewSummaryView;
  files: ReviewFiles;
  filter: string;
}): string | null {
  if (files.query.isPending) return null; // still loading: no verdict on emptiness yet
  if (!summary.workspaceId) return "The trial has no workspace yet: its changes appear once its agent has started.";
  if (files.query.error) return "The changed files could not be listed (see the message on the left).";
  if (files.total === 0)
    return summary.live ? "The agent has not changed any file yet." : "This trial changed no files.";
  return filter ? "No changed file matches the filter." : "Choose a file on the left.";
}
