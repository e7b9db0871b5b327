"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { terminalEvents } from "../../shared/session-schemas";
import { getSocket } from "../_lib/socket";
import { useTRPC } from "../_lib/trpc";

/** Refetches session lists and details whenever the server says a session changed. */
export function useSessionsLive(): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useEffect(() => {
    const socket = getSocket();
    const refetch = () => {
      void queryClient.invalidateQueries({ queryKey: trpc.sessions.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.sessions.get.pathKey() });
    };
    socket.on(terminalEvents.sessionsChanged, refetch);
    socket.on("connect", refetch);
    return () => {
      socket.off(terminalEvents.sessionsChanged, refetch);
      socket.off("connect", refetch);
    };
  }, [queryClient, trpc]);
}
