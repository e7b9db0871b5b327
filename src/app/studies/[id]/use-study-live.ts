"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import type { InvariantEvent, RecordedEvent } from "../../../shared/event-catalog";
import { rooms } from "../../../shared/event-catalog";
import { useLiveQuery } from "../../_lib/use-live-query";
import { useTRPC } from "../../_lib/trpc";
import { LogTails } from "./log-tails";

/**
 * Keeps a study page live: any event of the study's room refetches `studies.get` (at most every
 * 300 ms; polled while the socket is down); `trial.log` chunks go to per-trial tails; a finished or
 * changed trial drops its cached per-test results and saved log.
 */
export function useStudyLive(studyId: string): LogTails {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [tails] = useState(() => new LogTails());
  const queryKeys = useMemo(() => [trpc.studies.get.queryKey({ studyId })], [trpc, studyId]);

  // the shared socket may be in other rooms too; progress arrives as trial.progress
  const refetchOn = useCallback(
    (event: InvariantEvent) => event.studyId === studyId && event.type !== "trial.log" && event.type !== "agent.events",
    [studyId],
  );
  const onEvent = useCallback(
    ({ event }: RecordedEvent) => {
      if (event.studyId !== studyId) return;
      if (event.type === "trial.log") {
        tails.append(event.trialId, event.data.attempt, event.data.text);
        return;
      }
      const finished =
        event.type === "trial.finished" || event.type === "trial.started"
          ? [event.trialId]
          : event.type === "study.changed"
            ? event.data.trialIds
            : [];
      for (const trialId of finished) {
        void queryClient.invalidateQueries(trpc.studies.trialTests.queryFilter({ trialId }));
      }
    },
    [studyId, tails, queryClient, trpc],
  );
  useLiveQuery({ room: rooms.study(studyId), queryKeys, refetchOn, onEvent });
  return tails;
}
