"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../_lib/trpc";

/** The caller's role; controls that change things are hidden for viewers (the server refuses them anyway). */
export function useRole(): { role: "admin" | "viewer" | null; isAdmin: boolean; version: string | null } {
  const trpc = useTRPC();
  const { data } = useQuery(trpc.system.whoami.queryOptions(undefined, { staleTime: Infinity }));
  return { role: data?.role ?? null, isAdmin: data?.role === "admin", version: data?.version ?? null };
}
