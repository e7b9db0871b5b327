"use client";
import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import type { InvariantEvent, RecordedEvent } from "../../shared/event-catalog";
import { useRoomEvents, useSocketConnected } from "./socket";
import { useThrottledCallback } from "./use-throttled";

/** How often the queries are refetched while the socket is down (the live indicator promises "every few seconds"). */
export const POLL_MS = 5_000;

export interface LiveQueryOptions {
  /** The socket.io room: `system`, `project:<id>` or `study:<id>` (see `rooms` in the event catalog). */
  room: string;
  /** Query keys (or key prefixes) to refetch when an event of the room arrives, and to poll while offline. */
  queryKeys: readonly QueryKey[];
  /** Which events refetch the queries; every event of the room when omitted. */
  refetchOn?: (event: InvariantEvent) => boolean;
  /** Called with every event of the room first, e.g. to append a live log chunk. */
  onEvent?: (recorded: RecordedEvent) => void;
  /** Bursts of events collapse into at most one refetch per this many milliseconds. */
  throttleMs?: number;
  pollMs?: number;
}

/**
 * Keeps queries live: subscribes to a room while the component is mounted, refetches the queries on
 * its events (batched per animation frame, then throttled), and polls them every few seconds while the socket is disconnected.
 * Returns whether live events are arriving.
 */
export function useLiveQuery({
  room,
  queryKeys,
  refetchOn,
  onEvent,
  throttleMs = 300,
  pollMs = POLL_MS,
}: LiveQueryOptions): { connected: boolean } {
  const queryClient = useQueryClient();
  const connected = useSocketConnected();
  // the latest options without resubscribing to the room on every render
  const latest = useRef({ queryKeys, refetchOn, onEvent });
  useEffect(() => {
    latest.current = { queryKeys, refetchOn, onEvent };
  });

  const refetch = useCallback(() => {
    for (const queryKey of latest.current.queryKeys) void queryClient.invalidateQueries({ queryKey });
  }, [queryClient]);
  const throttledRefetch = useThrottledCallback(refetch, throttleMs);
  // one call per animation frame with the frame's events (socket.ts): at most one refetch for all of them
  const handle = useCallback(
    (batch: RecordedEvent[]) => {
      const { refetchOn: shouldRefetch, onEvent: also } = latest.current;
      let refetchWanted = false;
      for (const recorded of batch) {
        also?.(recorded);
        refetchWanted ||= !shouldRefetch || shouldRefetch(recorded.event);
      }
      if (refetchWanted) throttledRefetch();
    },
    [throttledRefetch],
  );
  useRoomEvents(room, handle);

  useEffect(() => {
    if (connected) return;
    const timer = setInterval(refetch, pollMs);
    return () => clearInterval(timer);
  }, [connected, refetch, pollMs]);

  return { connected };
}
