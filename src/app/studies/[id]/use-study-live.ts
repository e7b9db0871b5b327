"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import type { RecordedEvent } from "../../../shared/event-catalog";
import { rooms } from "../../../shared/event-catalog";
import { useRoomEvents } from "../../_lib/socket";
import { useTRPC } from "../../_lib/trpc";
import { useThrottledCallback } from "../use-throttled";
import { LogTails } from "./log-tails";

/**
 * Keeps a study page live: any event of the study's room refetches `studies.get` (at most every
 * 300 ms); `trial.log` chunks go to per-trial tails; a finished or changed trial drops its cached
 * per-test results and saved log.
 */
export function useStudyLive(studyId: string): LogTails {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [tails] = useState(() => new LogTails());
  const refresh = useThrottledCallback(
    () => void queryClient.invalidateQueries({ queryKey: trpc.studies.get.queryKey({ studyId }) }),
    300,
  );

  const onEvent = useCallback(
    ({ event }: RecordedEvent) => {
      if (event.studyId !== studyId) return; // the shared socket may be in other rooms too
      if (event.type === "trial.log") {
        tails.append(event.trialId, event.data.attempt, event.data.text);
        return;
      }
      if (event.type === "agent.events") return; // progress arrives as trial.progress
      refresh();
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
    [studyId, tails, refresh, queryClient, trpc],
  );
  useRoomEvents(rooms.study(studyId), onEvent);
  return tails;
}
