"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useState } from "react";
import { preloadDiffEditor } from "../../../../_components/diff-editor";
import { QueryState } from "../../../../_components/query-state";
import { useTRPC } from "../../../../_lib/trpc";
import { ReviewView } from "./review-view";
import { useReviewFiles } from "./use-review-files";
import { useReviewLive } from "./use-review-live";

/** /studies/<id>/trials/<trialId>: what one trial changed, file by file, and what its agent did. */
export default function TrialReviewPage() {
  const { id, trialId } = useParams<{ id: string; trialId: string }>();
  const params = useSearchParams();
  // the file opened first (linked with ?file=, else the first one); kept, so selecting others keeps the list's query
  const [opened] = useState<string | true>(() => params.get("file") ?? true);
  const trpc = useTRPC();
  const summary = useQuery(trpc.review.summary.queryOptions({ trialId }));
  // no waterfall: the file list with the first diff (ReviewView reads the same query) and Monaco's code
  // (set up while the data is on its way) load beside the summary
  useReviewFiles({ trialId }, opened);
  useEffect(() => preloadDiffEditor(), []);
  useReviewLive({ studyId: id, trialId, followUpIds: summary.data?.followUps.map((followUp) => followUp.id) });
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
          <ReviewView summary={data} opened={opened} />
        </Suspense>
      )}
    </QueryState>
  );
}
