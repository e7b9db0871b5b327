import type { EventPublisher } from "../events/event-stream";
import { LABEL } from "./container-spec";
import type { ContainerRuntime, ContainerSummary } from "./container-runtime";

export interface ReconcilerDeps {
  runtime: ContainerRuntime;
  self: { id: string; host: string; instance: string };
  /** Containers this worker runs right now. */
  active: ReadonlySet<string>;
  /** Ids of workers with a live heartbeat in Redis. */
  liveWorkers: () => Promise<Set<string>>;
  /** Whether a process exists on this host (for workers of this host, whose heartbeat may not have expired yet). */
  isProcessAlive: (pid: number) => boolean;
  publish: EventPublisher;
  log: (message: string) => void;
  /** A dangling volume younger than this is left alone (default 10 minutes). */
  volumeMinAgeMs?: number;
}

const VOLUME_MIN_AGE_MS = 600_000;

export interface ReconcileReport {
  removed: { id: string; role: string; reason: string }[];
  kept: number;
  /** Overlay volumes of this installation that no container used any more (a crash, a container removed by hand). */
  volumes: string[];
  /** Project bridges no container used any more (trials that never got a container, a process that died). */
  networks: string[];
}

function ownerGone(container: ContainerSummary, deps: ReconcilerDeps, live: Set<string>): string | null {
  // another installation's containers (its own Redis) are its reconciler's business: it alone can report them
  if (container.labels[LABEL.instance] !== deps.self.instance) return null;
  const owner = container.labels[LABEL.worker];
  if (!owner) return null; // not started by a worker (e.g. a probe); not ours to judge
  if (owner === deps.self.id) return deps.active.has(container.id) ? null : "this worker is not running it any more";
  if (container.labels[LABEL.workerHost] === deps.self.host) {
    // on this host the process table is the truth (another invariant-web with its own Redis may own it)
    const pid = Number(container.labels[LABEL.workerPid]);
    return Number.isInteger(pid) && deps.isProcessAlive(pid)
      ? null
      : `its worker (pid ${container.labels[LABEL.workerPid] ?? "?"} on this host) is gone`;
  }
  return live.has(owner) ? null : `its worker ${owner} stopped sending heartbeats`;
}

/**
 * Compares the containers we labelled with the workers that are alive: a container whose worker is
 * gone is an orphan. Orphans are stopped and removed, and the run they belonged to is reported so the
 * web process can mark it interrupted. Safe to run on every worker at any time.
 */
export async function reconcileContainers(deps: ReconcilerDeps): Promise<ReconcileReport> {
  const containers = await deps.runtime.listManagedContainers();
  const live = await deps.liveWorkers();
  const report: ReconcileReport = { removed: [], kept: 0, volumes: [], networks: [] };
  for (const container of containers) {
    const reason = ownerGone(container, deps, live);
    if (!reason) {
      report.kept++;
      continue;
    }
    await deps.runtime.removeContainer(container.id);
    const role = container.labels[LABEL.role] ?? "unknown";
    report.removed.push({ id: container.id, role, reason });
    deps.log(`reconciler: removed orphan ${role} container ${container.id.slice(0, 12)} (${reason})`);
    const projectId = container.labels[LABEL.project];
    const versionId = container.labels[LABEL.environment];
    if (role === "prepare" && projectId && versionId) {
      await deps.publish({
        type: "environment.finished",
        projectId,
        data: {
          versionId,
          status: "failed",
          durationMs: 0,
          error: `Interrupted: ${reason}; its container was removed. The previous version stays active.`,
        },
      });
    }
  }
  // after the containers: a removed orphan's volumes went with it; what is left is no container's
  report.volumes = await deps.runtime.removeDanglingVolumes(
    { [LABEL.instance]: deps.self.instance },
    { createdBefore: new Date(Date.now() - (deps.volumeMinAgeMs ?? VOLUME_MIN_AGE_MS)) },
  );
  if (report.volumes.length > 0)
    deps.log(
      `reconciler: removed ${report.volumes.length} overlay volume(s) no container uses (${report.volumes.join(", ")})`,
    );
  // and the project bridges no container is on (each removal holds the bridge's lock: none goes while a container is put on it)
  report.networks = await deps.runtime.removeIdleProjectNetworks();
  if (report.networks.length > 0)
    deps.log(
      `reconciler: removed ${report.networks.length} project network(s) no container uses (${report.networks.join(", ")})`,
    );
  return report;
}
