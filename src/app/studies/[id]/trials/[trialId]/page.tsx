"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Suspense, useEffect } from "react";
import { preloadDiffEditor } from "../../../../_components/diff-editor";
import { QueryState } from "../../../../_components/query-state";
import { useTRPC } from "../../../../_lib/trpc";
import { ReviewView } from "./review-view";
import { useReviewFiles } from "./use-review-files";
import { useReviewLive } from "./use-review-live";

/** /studies/<id>/trials/<trialId>: what one trial changed, file by file, and what its agent did. */
export default function TrialReviewPage() {
  const { id, trialId } = useParams<{ id: string; trialId: string }>();
  const trpc = useTRPC();
  const summary = useQuery(trpc.review.summary.queryOptions({ trialId }));
  // no waterfall: the file list (ReviewView reads the same query) and Monaco's code load beside the summary
  useReviewFiles(trialId);
  useEffect(() => preloadDiffEditor(), []);
  useReviewLive({ studyId: id, trialId });
  return (
    <QueryState
      query={summary}
      loading="Loading the trial…"
      errorPrefix="Could not load the trial"
      missing="No such trial."
      errorExtra={
        <Link href={`/studies/${id}`} className="text-accent underline">
          Back to the study
        </Link>
      }
    >
      {(data) => (
        <Suspense fallback={<p className="text-muted">Loading…</p>}>
          <ReviewView summary={data} />
        </Suspense>
      )}
    </QueryState>
  );
}
