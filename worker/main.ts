import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { publishEvent } from "../src/server/core/events/event-stream";
import { connectRedis } from "../src/server/core/redis/connection";
import { sweepScratch } from "../src/server/core/dependencies/dependency-runtime";
import type { ContainerRuntime } from "../src/server/core/runtime/docker-runtime";
import { containerUserNote, resolveHostUser } from "../src/server/core/runtime/container-user";
import { reconcileContainers, type ReconcileReport } from "../src/server/core/runtime/reconciler";
import { isProcessAlive } from "../src/lib/process-alive";
import {
  DEFAULT_HEARTBEAT,
  listWorkers,
  removeHeartbeat,
  writeHeartbeat,
  type HeartbeatTiming,
  type WorkerInfo,
} from "../src/server/core/jobs/worker-registry";
import { startHeartbeat, type Heartbeat } from "./heartbeat";
import { stopAwarePublisher } from "./worker-publisher";
import { DEFAULT_FLOORS, type CapacityFloors, type CapacityTracker } from "./capacity";
import { createJobHandlers } from "./job-handlers";
import { createQueueWorker } from "./queue-worker";
import { handsBackFor, openDashboardLink, type DashboardLink } from "./dashboard-link";
import { closableRuntime, removeOwnContainers, workerRuntime } from "./worker-runtime";
import type { EventInput } from "../src/server/core/events/event-stream";
import type { WorkerIdentity } from "../src/server/core/runtime/container-spec";
import type { RegisteredJob } from "./job-handler";
import { startWorkerGatewayHost, type GatewayHost, type ModelGatewayConfig } from "./model-gateway-host";
import type { WorkspaceKindSetting } from "../src/server/core/workspaces/workspace-kind";

const INSTANCE_KEY = "invariant:instance";

export interface WorkerOptions {
  redisUrl: string;
  dataDir: string;
  concurrency: number;
  version: string;
  log: (message: string) => void;
  /** The model gateway's credential sources and upstream (see docs/agents.md). */
  modelGateway: ModelGatewayConfig;
  /** How often the reconciler looks for orphaned containers (ms). */
  reconcileEveryMs?: number;
  /** The host CA bundle for containers with network: "auto" (default), "off" or a path (INVARIANT_HOST_CA). */
  hostCa?: string;
  /** The heartbeat's timing (worker-registry.ts DEFAULT_HEARTBEAT); tests shorten it. */
  heartbeat?: Partial<HeartbeatTiming>;
  /** Free disk and memory under which it takes no new job (capacity.ts DEFAULT_FLOORS; INVARIANT_WORKER_MIN_FREE_*). */
  floors?: Partial<CapacityFloors>;
  /** Which kind of workspace trials get: "auto" (default: probed once), "copy" or "overlay" (INVARIANT_WORKSPACE_KIND). */
  workspaceKind?: WorkspaceKindSetting;
  /**
   * A worker on another host, with a data dir and Docker engine of its own: the dashboard it fetches
   * snapshots, test files and images from and delivers results to, and its worker token (docs/scaling.md).
   */
  dashboard?: { url: string; token: string };
  /** Told when this worker must stop by itself (its worker token was refused); the caller stops it. */
  onSelfStop?: (reason: string) => void;
}

export interface RunningWorker {
  info: WorkerInfo;
  reconcile(): Promise<ReconcileReport>;
  stop(reason: string): Promise<void>;
}

/** This process as the System page lists it; the id is unique per process start. */
function describeWorker(options: WorkerOptions): WorkerInfo {
  return {
    id: `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
    host: os.hostname(),
    pid: process.pid,
    concurrency: options.concurrency,
    version: options.version,
    startedAt: new Date().toISOString(),
    lastSeen: new Date().toISOString(),
    remoteAs: null,
    capacity: null,
  };
}

/** One Redis = one installation; containers are labelled with it so reconcilers of other installations leave them alone. */
async function installationId(redis: Redis): Promise<string> {
  await redis.set(INSTANCE_KEY, randomBytes(8).toString("hex"), "NX");
  return (await redis.get(INSTANCE_KEY)) ?? "unknown";
}

/** Running jobs get this long to finish on a stop before their containers are stopped. */
const STOP_GRACE_MS = 5_000;

/**
 * Graceful first: running jobs get STOP_GRACE_MS to finish. Then the containers they started (agent,
 * evaluation, preflight, build) are removed — again while the forced close runs, since a job may start
 * its next step's container — so the worker leaves none behind; their trials are reported interrupted
 * (the sweeper sees this worker gone) or end with the reason their container vanished.
 */
async function shutdown(options: {
  worker: Worker;
  timers: NodeJS.Timeout[];
  heartbeat: Heartbeat;
  gatewayHost: GatewayHost;
  redis: Redis;
  runtime: ContainerRuntime;
  info: WorkerInfo;
  reason: string;
  log: (message: string) => void;
  onAbandon: () => void;
  /** From here on no container may start: one started after the last sweep would outlive the worker. */
  refuseContainers: () => void;
}): Promise<void> {
  const { worker, redis, info, runtime } = options;
  for (const timer of options.timers) clearInterval(timer);
  let forced: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    worker.close().then(() => true),
    new Promise<boolean>((resolve) => (forced = setTimeout(() => resolve(false), STOP_GRACE_MS))),
  ]);
  clearTimeout(forced);
  if (!finished) {
    options.refuseContainers();
    options.onAbandon();
    // gone for the sweeper before its jobs fail with their containers: a failed job of a live worker would
    // end its trial `error`, while a trial whose worker stopped is `interrupted` and retryable
    await options.heartbeat.stop();
    await removeHeartbeat(redis, info.id).catch(() => undefined);
    const sweep = setInterval(() => void removeOwnContainers(runtime, info.id).catch(() => undefined), 500);
    const removed = await removeOwnContainers(runtime, info.id).catch(() => 0);
    options.log(
      `stopping (${options.reason}): jobs still running after ${STOP_GRACE_MS / 1000} s; removed their ${removed} containers`,
    );
    await worker.close(true);
    clearInterval(sweep);
    await removeOwnContainers(runtime, info.id).catch(() => 0);
  }
  await options.gatewayHost.close();
  await options.heartbeat.stop();
  await removeHeartbeat(redis, info.id);
  await publishEvent(redis, {
    type: "worker.offline",
    workerId: info.id,
    data: { host: info.host, pid: info.pid, reason: options.reason },
  });
  await redis.quit();
}

async function startBeating(o: {
  redis: Redis;
  info: WorkerInfo;
  capacity: CapacityTracker;
  timing: HeartbeatTiming;
  options: WorkerOptions;
}): Promise<Heartbeat> {
  o.info.capacity = o.capacity.snapshot();
  await writeHeartbeat(o.redis, o.info, o.timing.ttlMs);
  return startHeartbeat({
    redisUrl: o.options.redisUrl,
    info: o.info,
    capacity: o.capacity.snapshot,
    timing: o.timing,
    log: o.options.log,
  });
}

/** Starts pulling jobs and the periodic floor and reconciler checks, and announces the worker; returns its timers. */
async function goOnline(o: {
  worker: Worker;
  redis: Redis;
  info: WorkerInfo;
  options: WorkerOptions;
  applyFloors: () => Promise<void>;
  reconcile: () => Promise<ReconcileReport>;
  heartbeat: Heartbeat;
  timing: HeartbeatTiming;
}): Promise<NodeJS.Timeout[]> {
  const { log } = o.options;
  void o.worker.run().catch((error: unknown) => log(`worker: ${String(error)}`));
  const timers = [
    // the floors are checked as often as the heartbeat beats, which then advertises the result
    setInterval(() => void o.applyFloors().then(() => o.heartbeat.update()), o.timing.intervalMs),
    setInterval(
      () => void o.reconcile().catch((error: unknown) => log(`reconciler: ${String(error)}`)),
      o.options.reconcileEveryMs ?? 60_000,
    ),
  ];
  await publishEvent(o.redis, {
    type: "worker.online",
    workerId: o.info.id,
    data: { host: o.info.host, pid: o.info.pid, concurrency: o.info.concurrency },
  });
  return timers;
}

/** The model gateway beside this worker and the handler of every job (with the dashboard's channel when remote). */
async function startJobSide(o: {
  options: WorkerOptions;
  runtime: ContainerRuntime;
  redis: Redis;
  identity: WorkerIdentity;
  active: Set<string>;
  publish: (event: EventInput) => Promise<unknown>;
  link: DashboardLink | null;
}): Promise<{ gatewayHost: GatewayHost; handlers: Map<string, RegisteredJob> }> {
  const { options, link } = o;
  const gatewayHost = await startWorkerGatewayHost({
    config: options.modelGateway,
    dataDir: options.dataDir,
    workerId: o.identity.id,
    log: options.log,
    channel: link?.channel ?? null,
  });
  // redisUrl, dataDir, hostCa and workspaceKind come from the options
  const handlers = createJobHandlers({
    ...options,
    runtime: o.runtime,
    redis: o.redis,
    publish: o.publish,
    identity: o.identity,
    active: o.active,
    gatewayHost,
    // a worker on another host sends its changed files back from a plain copy (the overlay kind is for this host)
    ...(link ? { artifacts: link.artifacts, workspaceKind: "copy" as const, sendImage: link.sendImage } : {}),
    modelRuns: gatewayHost.modelRuns,
  });
  return { gatewayHost, handlers };
}

/**
 * A BullMQ worker: turns jobs into work on this host's Docker engine and reports through Redis.
 * It never opens the database; the web process records what it publishes.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const hostUser = resolveHostUser();
  const { runtime, refuseContainers } = closableRuntime(workerRuntime(options, hostUser));
  const redis = connectRedis({ url: options.redisUrl, name: "invariant-worker" });
  const info = describeWorker(options);
  const instance = await installationId(redis);
  const identity = { id: info.id, host: info.host, pid: info.pid, instance };
  const active = new Set<string>();
  const { publish, abandon } = stopAwarePublisher(redis, options.dataDir, options.log);
  const link = await openDashboardLink({ options, runtime, info, onRefused: (reason) => options.onSelfStop?.(reason) });
  const { gatewayHost, handlers } = await startJobSide({ options, runtime, redis, identity, active, publish, link });
  const reconcile = () =>
    reconcileContainers({
      runtime,
      self: { id: info.id, host: info.host, instance },
      active,
      liveWorkers: async () => new Set((await listWorkers(redis)).map((worker) => worker.id)),
      isProcessAlive,
      publish,
      log: options.log,
    });
  let heartbeat: Heartbeat | null = null;
  const { worker, capacity, applyFloors } = createQueueWorker({
    ...options,
    floors: { ...DEFAULT_FLOORS, ...options.floors },
    handlers,
    context: { workerId: info.id, log: options.log },
    onSlotsChanged: () => heartbeat?.update(),
    handsBack: handsBackFor({ id: info.id, host: info.host, remote: link !== null }),
  });
  await applyFloors();

  const timing = { ...DEFAULT_HEARTBEAT, ...options.heartbeat };
  const beating = await startBeating({ redis, info, capacity, timing, options });
  heartbeat = beating;
  // clean up after a crashed predecessor before taking new work
  await reconcile().catch((error: unknown) => options.log(`reconciler: ${String(error)}`));
  // the overlay folders of dependency mounts whose worker died with its containers
  await sweepScratch({ dataDir: options.dataDir, host: info.host, isProcessAlive }).catch((error: unknown) =>
    options.log(`dependency scratch: ${String(error)}`),
  );
  const timers = await goOnline({ worker, redis, info, options, applyFloors, reconcile, heartbeat: beating, timing });
  options.log(`worker ${info.id} online (concurrency ${options.concurrency}; ${containerUserNote(hostUser)})`);

  link?.watch();
  let stopping: Promise<void> | null = null;
  return {
    info,
    reconcile,
    stop(reason) {
      const log = options.log;
      link?.close();
      stopping ??= shutdown({
        worker,
        timers,
        heartbeat: beating,
        gatewayHost,
        redis,
        runtime,
        info,
        reason,
        log,
        onAbandon: abandon,
        refuseContainers,
      });
      return stopping;
    },
  };
}
