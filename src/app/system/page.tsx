"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { describeError } from "../_lib/errors";
import { formatRelative } from "../_lib/format";
import { useRoomEvents } from "../_lib/socket";
import { useTRPC } from "../_lib/trpc";
import { PageHeader, Panel, secondaryButtonClass } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { ViewerLinks } from "./viewer-links";

const statusStyle = { ok: "text-emerald-400", warn: "text-amber-300", fail: "text-red-400" } as const;
const statusMark = { ok: "✓", warn: "!", fail: "✗" } as const;

export default function SystemPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { isAdmin } = useRole();
  const doctor = useQuery(trpc.system.doctor.queryOptions());
  const workers = useQuery(trpc.system.workers.queryOptions(undefined, { refetchInterval: 5_000 }));
  const events = useQuery(trpc.system.recentEvents.queryOptions({ limit: 20 }));
  const selfcheck = useMutation(trpc.system.selfcheck.mutationOptions());
  const onEvent = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.system.workers.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.system.recentEvents.queryKey() });
  }, [queryClient, trpc]);
  useRoomEvents("system", onEvent);

  return (
    <>
      <PageHeader
        title="System"
        description="Health of this host, the workers that run jobs, and who can see this dashboard."
      />
      <div className="grid gap-6">
        <Panel title="Checks">
          {doctor.isPending ? <p className="text-sm text-muted">Running checks…</p> : null}
          {doctor.data ? (
            <ul className="grid gap-2" aria-label="Checks">
              {doctor.data.checks.map((check) => (
                <li key={check.id} className="text-sm">
                  <span className={`mr-2 font-mono ${statusStyle[check.status]}`}>{statusMark[check.status]}</span>
                  <span className="font-medium">{check.title}</span> <span className="text-muted">{check.detail}</span>
                  {check.fix ? <p className="ml-6 text-xs text-amber-200">Fix: {check.fix}</p> : null}
                </li>
              ))}
            </ul>
          ) : null}
          <button type="button" className={`${secondaryButtonClass} mt-3`} onClick={() => void doctor.refetch()}>
            Check again
          </button>
        </Panel>
        <Panel title="Workers online">
          {workers.data?.length === 0 ? (
            <p className="text-sm text-muted">
              No worker is online. `invariant-web` starts one; more can join with `invariant-web worker --redis-url …`.
            </p>
          ) : null}
          {workers.data && workers.data.length > 0 ? (
            <table className="w-full text-left text-sm" aria-label="Workers">
              <thead className="text-xs uppercase text-muted">
                <tr>
                  <th className="py-1">Host</th>
                  <th>PID</th>
                  <th>Concurrency</th>
                  <th>Version</th>
                  <th>Last seen</th>
                </tr>
              </thead>
              <tbody>
                {workers.data.map((worker) => (
                  <tr key={worker.id} className="border-t border-line">
                    <td className="py-1.5">{worker.host}</td>
                    <td>{worker.pid}</td>
                    <td>{worker.concurrency}</td>
                    <td>{worker.version}</td>
                    <td>{formatRelative(worker.lastSeen)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {isAdmin ? (
            <div className="mt-3">
              <button
                type="button"
                className={secondaryButtonClass}
                onClick={() => selfcheck.mutate()}
                disabled={selfcheck.isPending}
              >
                {selfcheck.isPending ? "Running self-check…" : "Run worker self-check"}
              </button>
              {selfcheck.data ? (
                <p className="mt-2 text-sm" role="status">
                  Worker {selfcheck.data.host} (pid {selfcheck.data.pid}):{" "}
                  {selfcheck.data.ok
                    ? "all checks passed"
                    : `failed: ${selfcheck.data.checks
                        .filter((c) => c.status === "fail")
                        .map((c) => c.title)
                        .join(", ")}`}
                </p>
              ) : null}
              {selfcheck.error ? (
                <p role="alert" className="mt-2 text-sm text-red-400">
                  {describeError(selfcheck.error).message}
                </p>
              ) : null}
            </div>
          ) : null}
        </Panel>
        {isAdmin ? <ViewerLinks /> : null}
        <Panel title="Recent events">
          <ul className="grid gap-1 font-mono text-xs text-muted" aria-label="Recent events">
            {(events.data ?? []).map(({ id, event }) => (
              <li key={id}>
                {new Date(event.at).toLocaleTimeString()} {event.type}{" "}
                {"host" in event.data ? `${event.data.host}` : ""}
              </li>
            ))}
            {events.data?.length === 0 ? <li>No events yet.</li> : null}
          </ul>
        </Panel>
      </div>
    </>
  );
}
