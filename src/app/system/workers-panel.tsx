"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../server/trpc/app-router";
import { DataTable, type Column } from "../_components/data-table";
import { ErrorMessage, Panel, secondaryButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { formatRelative } from "../_lib/format";
import { useTRPC } from "../_lib/trpc";

type Worker = inferRouterOutputs<AppRouter>["system"]["workers"][number];

const workerColumns: Column<Worker>[] = [
  { key: "host", header: "Host", cell: (worker) => worker.host },
  { key: "pid", header: "PID", cell: (worker) => worker.pid },
  { key: "concurrency", header: "Concurrency", cell: (worker) => worker.concurrency },
  { key: "version", header: "Version", cell: (worker) => worker.version },
  { key: "last-seen", header: "Last seen", cell: (worker) => formatRelative(worker.lastSeen) },
];

/** Workers online (their heartbeat is refetched every few seconds), and the admin's worker self-check. */
export function WorkersPanel({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const workers = useQuery(trpc.system.workers.queryOptions(undefined, { refetchInterval: 5_000 }));
  return (
    <Panel title="Workers online">
      {workers.data?.length === 0 ? (
        <p className="text-sm text-muted">
          No worker is online. `invariant-web` starts one; more can join with `invariant-web worker --redis-url …`.
        </p>
      ) : null}
      {workers.data && workers.data.length > 0 ? (
        <DataTable
          label="Workers"
          density="flush"
          columns={workerColumns}
          rows={workers.data}
          rowKey={(worker) => worker.id}
        />
      ) : null}
      {isAdmin ? <SelfCheck /> : null}
    </Panel>
  );
}

function SelfCheck() {
  const trpc = useTRPC();
  const selfcheck = useMutation(trpc.system.selfcheck.mutationOptions());
  return (
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
        <ErrorMessage className="mt-2 text-sm">{describeError(selfcheck.error).message}</ErrorMessage>
      ) : null}
    </div>
  );
}
