import type { JobQueue } from "../../core/jobs/job-queue";
import { AppError } from "../../core/errors/app-error";
import { runDoctor, type DoctorReport } from "../../core/diagnostics/doctor";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { EventQueries } from "../events/events.queries";
import { selfcheckJob, type SelfcheckResult } from "../../core/jobs/job-catalog";
import type { WorkerInfo } from "../../core/redis/worker-registry";
import type { QueueProbe } from "../../core/events/queue-probe";
import { checkHealth, type SupervisionSource } from "./health";
import type { HealthReport } from "../../../shared/system-health";
import { messageOf } from "../../../shared/error-message";
import type { ImageRegistry } from "../../core/runtime/registry-transfer";

export interface SystemServiceDeps {
  runtime: ContainerRuntime;
  queueProbe: QueueProbe;
  redisUrl: string;
  dataDir: string;
  events: EventQueries;
  queue: JobQueue;
  /** The launcher's supervised children (private Redis, worker); none when the web process runs without it. */
  supervision?: SupervisionSource;
  /** The registry images move through between hosts (--registry), or null: docker save over HTTP. */
  registry?: ImageRegistry | null;
  clock?: () => Date;
}

/** How images move between this dashboard's host and workers on other hosts (the System page says it). */
export type ImageTransport = { transport: "registry"; registry: string } | { transport: "docker-save" };

export function createSystemService(deps: SystemServiceDeps) {
  const clock = deps.clock ?? (() => new Date());
  return {
    doctor: (): Promise<DoctorReport> =>
      runDoctor({ runtime: deps.runtime, dataDir: deps.dataDir, redisUrl: deps.redisUrl }),
    workers: (): Promise<WorkerInfo[]> => deps.queueProbe.workers(),
    /** What /api/health and the System page report: ok, or degraded with the reasons. */
    health: (): Promise<HealthReport> =>
      checkHealth({
        queue: deps.queueProbe,
        supervision: deps.supervision?.() ?? [],
        docker: () => deps.runtime.version(),
      }),
    recentEvents: (limit: number) => deps.events.recent({ limit }),
    imageTransport: (): ImageTransport =>
      deps.registry ? { transport: "registry", registry: deps.registry.address } : { transport: "docker-save" },

    /** Runs a self-check job on whichever worker picks it up: proves the queue round trip end to end. */
    async selfcheck(options: { timeoutMs?: number } = {}): Promise<SelfcheckResult> {
      const workers = await deps.queueProbe.workers();
      if (workers.length === 0) {
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: "No worker is online. Start one with `invariant-web worker`, or restart invariant-web.",
        });
      }
      try {
        return await deps.queue.runAndWait({
          job: selfcheckJob,
          data: { requestedAt: clock().toISOString() },
          timeoutMs: options.timeoutMs ?? 30_000,
        });
      } catch (error) {
        throw new AppError({
          code: "INTERNAL_SERVER_ERROR",
          message: `The worker self-check did not finish: ${messageOf(error)}`,
          cause: error,
        });
      }
    },
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
