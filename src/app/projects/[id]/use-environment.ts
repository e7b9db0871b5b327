"use client";
import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useCallback, useMemo, useState } from "react";
import type { InvariantEvent, RecordedEvent } from "../../../shared/event-catalog";
import { rooms } from "../../../shared/event-catalog";
import type { AppRouter } from "../../../server/web/trpc/app-router";
import { useTRPC } from "../../_lib/trpc";
import { useLiveQuery } from "../../_lib/use-live-query";

/** What `useEnvironment` returns: the page reads it once for its status and its Environment panel. */
export type ProjectEnvironment = ReturnType<typeof useEnvironment>;

export type EnvironmentVersion = inferRouterOutputs<AppRouter>["environments"]["overview"]["versions"][number];

/** The last "[k/n]" step marker in a build log, as a fraction for the progress bar. */
function progressOf(log: string): number | null {
  const steps = [...log.matchAll(/\[(\d+)\/(\d+)\]/g)].at(-1);
  return steps ? Number(steps[1]) / Number(steps[2]) : null;
}

const refetchOn = (event: InvariantEvent) =>
  event.type === "environment.finished" || event.type === "environment.started";

/**
 * A project's environment versions, kept live by the project's room (polled while the socket is down),
 * and the build log shown: the building version's, else the one picked, with live output appended.
 */
export function useEnvironment(projectId: string) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.environments.overview.queryOptions({ projectId }));
  const versions = overview.data?.versions ?? [];
  const building = versions.find((v) => v.status === "building") ?? null;
  const [selected, setSelected] = useState<string | null>(null);
  const logVersion = building?.id ?? selected;
  const savedLog = useQuery(
    trpc.environments.log.queryOptions({ versionId: logVersion ?? "" }, { enabled: logVersion !== null }),
  );
  const [liveLog, setLiveLog] = useState<Record<string, string>>({});

  const onEvent = useCallback(({ event }: RecordedEvent) => {
    if (event.type === "environment.log")
      setLiveLog((current) => ({
        ...current,
        [event.data.versionId]: (current[event.data.versionId] ?? "") + event.data.text,
      }));
  }, []);
  const queryKeys = useMemo(() => [trpc.environments.pathKey()], [trpc]);
  useLiveQuery({ room: rooms.project(projectId), queryKeys, refetchOn, onEvent });

  const live = logVersion ? liveLog[logVersion] : undefined;
  const log = logVersion ? (live && live.length > (savedLog.data?.length ?? 0) ? live : (savedLog.data ?? "")) : "";
  return {
    overview,
    versions,
    active: versions.find((v) => v.active),
    building,
    logVersion,
    log,
    progress: building ? progressOf(log) : null,
    showLog: setSelected,
  };
}
