"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import type { InvariantEvent, RecordedEvent } from "../../../../../shared/event-catalog";
import { rooms } from "../../../../../shared/event-catalog";
import { useLiveQuery } from "../../../../_lib/use-live-query";
import { useTRPC } from "../../../../_lib/trpc";

/**
 * Keeps a trial's review live while it runs: its events (in the study's room) refetch the summary and
 * the transcript (at most once a second); a start, finish or study change also refetches the changed
 * files and the per-test results.
 */
export function useReviewLive({
  studyId,
  trialId,
  followUpIds = [],
}: {
  studyId: string;
  trialId: string;
  /** The trial's follow-ups: their events refetch the summary too (it lists their states and verdicts). */
  followUpIds?: readonly string[];
}): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queryKeys = useMemo(
    () => [trpc.review.summary.queryKey({ trialId }), trpc.review.transcript.queryKey({ trialId })],
    [trpc, trialId],
  );
  const followUps = followUpIds.join(",");
  const refetchOn = useCallback(
    (event: InvariantEvent) =>
      event.type !== "trial.log" &&
      (event.trialId === trialId || (!!event.trialId && followUps.split(",").includes(event.trialId))),
    [trialId, followUps],
  );
  const onEvent = useCallback(
    ({ event }: RecordedEvent) => {
      const changed =
        event.type === "trial.finished" || event.type === "trial.started"
          ? event.trialId === trialId
          : event.type === "study.changed" && event.studyId === studyId && event.data.trialIds.includes(trialId);
      if (!changed) return;
      void queryClient.invalidateQueries(trpc.review.files.pathFilter());
      void queryClient.invalidateQueries(trpc.review.file.pathFilter());
      void queryClient.invalidateQueries(trpc.studies.get.queryFilter({ studyId }));
      void queryClient.invalidateQueries(trpc.studies.trialTests.queryFilter({ trialId }));
    },
    [queryClient, trpc, studyId, trialId],
  );
  useLiveQuery({ room: rooms.study(studyId), queryKeys, refetchOn, onEvent, throttleMs: 1000 });
}
