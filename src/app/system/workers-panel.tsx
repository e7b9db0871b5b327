"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../server/web/trpc/app-router";
import { DataTable, type Column } from "../_components/data-table";
import { ErrorMessage, Panel, secondaryButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { formatBytes, formatRelative } from "../_lib/format";
import { useTRPC } from "../_lib/trpc";

type Worker = inferRouterOutputs<AppRouter>["system"]["workers"][number];

const unknown = <span className="text-muted">unknown</span>;

/** "Yes", or why it takes no job now (all slots busy, a floor of free disk or memory). */
function takingJobs(worker: Worker) {
  const { capacity } = worker;
  if (!capacity) return unknown;
  return capacity.accepting ? "yes" : <span className="text-warn-ink">no: {capacity.pausedReason}</span>;
}

const workerColumns: Column<Worker>[] = [
  { key: "host", header: "Host", cell: (worker) => worker.host },
  {
    key: "joined",
    header: "Joined",
    // a worker on another host reaches this dashboard over HTTP with a worker token (named here)
    cell: (worker) => (worker.remoteAs ? `over HTTP as "${worker.remoteAs}"` : "this host's data dir"),
  },
  { key: "pid", header: "PID", cell: (worker) => worker.pid },
  {
    key: "slots",
    header: "Slots busy",
    cell: (worker) =>
      worker.capacity ? `${worker.capacity.busySlots} of ${worker.capacity.slots}` : `? of ${worker.concurrency}`,
  },
  {
    key: "trials",
    header: "Trials running",
    numeric: true,
    cell: (worker) => worker.capacity?.runningTrials.length ?? unknown,
  },
  { key: "taking", header: "Taking jobs", cell: takingJobs },
  { key: "cpus", header: "CPUs", numeric: true, cell: (worker) => worker.capacity?.cpus ?? unknown },
  {
    key: "memory",
    header: "Memory free",
    cell: (worker) =>
      worker.capacity
        ? `${formatBytes(worker.capacity.memoryAvailableBytes)} of ${formatBytes(worker.capacity.memoryTotalBytes)}`
        : unknown,
  },
  {
    key: "disk",
    header: "Disk free",
    cell: (worker) => (worker.capacity ? formatBytes(worker.capacity.diskFreeBytes) : unknown),
  },
  { key: "version", header: "Version", cell: (worker) => worker.version },
  { key: "last-seen", header: "Last seen", cell: (worker) => formatRelative(worker.lastSeen) },
];

/**
 * Workers online with the room each advertises in its heartbeat (CPUs, memory, the data dir's free disk,
 * slots and the trials in them, whether it takes jobs) — refetched every few seconds — and the admin's
 * worker self-check.
 */
export function WorkersPanel({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const workers = useQuery(trpc.system.workers.queryOptions(undefined, { refetchInterval: 5_000 }));
  return (
    <Panel title="Workers online" className="min-w-0">
      {workers.isPending ? <p className="text-sm text-muted">Reading the workers' heartbeats…</p> : null}
      {workers.data?.length === 0 ? (
        <p className="text-sm text-muted">
          No worker is online. `invariant-web` starts one; more can join with `invariant-web worker --redis-url …`.
        </p>
      ) : null}
      {workers.data && workers.data.length > 0 ? (
        <DataTable
          label="Workers"
          density="dense"
          className="whitespace-nowrap"
          columns={workerColumns}
          rows={workers.data}
          rowKey={(worker) => worker.id}
          rowProps={(worker) => ({ "data-testid": "worker-row", "data-worker": worker.id })}
          wrapperClassName="overflow-x-auto"
        />
      ) : null}
      <ImageTransportNote />
      {isAdmin ? <SelfCheck /> : null}
    </Panel>
  );
}

/** How images move to and from workers on other hosts: through the registry, or docker save over HTTP. */
function ImageTransportNote() {
  const trpc = useTRPC();
  const transport = useQuery(trpc.system.imageTransport.queryOptions());
  if (!transport.data) return null;
  return (
    <p className="mt-3 text-sm text-muted [overflow-wrap:anywhere]" data-testid="image-transport">
      Images to and from workers on other hosts:{" "}
      {transport.data.transport === "registry" ? (
        <>
          through the registry <code>{transport.data.registry}</code> (only missing layers move, pulled by digest).
        </>
      ) : (
        <>docker save over HTTP (no --registry set: every image moves whole).</>
      )}
    </p>
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
