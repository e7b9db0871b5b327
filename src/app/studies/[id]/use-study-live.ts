"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import type { InvariantEvent, RecordedEvent } from "../../../shared/event-catalog";
import { rooms } from "../../../shared/event-catalog";
import { useLiveQuery } from "../../_lib/use-live-query";
import { useTRPC } from "../../_lib/trpc";
import { LogTails } from "./log-tails";

/**
 * How often a study's events may refetch the whole study: every 300 ms for a small one, up to once a
 * second for 200 trials (5 ms per trial), so a big study's live events do not have the web process
 * render its full view several times a second for every open page.
 */
export const refetchEveryMs = (trials: number) => Math.min(1000, Math.max(300, trials * 5));

/**
 * Keeps a study page live: any event of the study's room refetches `studies.get` (at most every
 * `refetchEveryMs(trials)`; polled while the socket is down); events arrive batched per animation frame
 * (socket.ts); `trial.log` chunks go to per-trial tails; a finished or changed trial drops its cached
 * per-test results and saved log.
 */
export function useStudyLive(studyId: string, trials = 0): LogTails {
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
  useLiveQuery({ room: rooms.study(studyId), queryKeys, refetchOn, onEvent, throttleMs: refetchEveryMs(trials) });
  return tails;
}
