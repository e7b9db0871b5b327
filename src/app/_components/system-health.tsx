"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../_lib/trpc";
import { focusRing, warnBoxClass } from "./ui";

/** The system's health, refetched every 5 s (one shared query: the banner, the warnings and the System page). */
export function useHealth() {
  const trpc = useTRPC();
  return useQuery(trpc.system.health.queryOptions(undefined, { refetchInterval: 5_000, retry: false }));
}

/** Under the navigation on every page while something is wrong: Redis down, no worker, a child that keeps failing. */
export function HealthBanner() {
  const health = useHealth();
  if (health.data?.status !== "degraded") return null;
  return (
    <div role="alert" data-testid="health-banner" className="border-b border-warn-strong/60 bg-warn-strong/10">
      <div className="mx-auto max-w-6xl px-6 py-2 text-sm text-warn-ink">
        <strong className="font-semibold">Something needs attention.</strong>{" "}
        {health.data.problems.map((problem) => (
          <span key={problem} className="mr-2">
            {problem}
          </span>
        ))}
        <Link href="/system" className={`text-accent underline ${focusRing}`}>
          System page
        </Link>
      </div>
    </div>
  );
}

/** Beside a button that queues work (new study, Retry): says when no worker is online to run it. */
export function NoWorkerWarning({ what }: { what: string }) {
  const health = useHealth();
  if (health.data?.workers.online !== 0) return null;
  return (
    <div role="status" data-testid="no-worker-warning" className={warnBoxClass}>
      <strong className="font-semibold">No worker is online.</strong> {what} waits in the queue until one starts:
      restart invariant-web, or run <code>invariant-web worker</code> (see the System page).
    </div>
  );
}
