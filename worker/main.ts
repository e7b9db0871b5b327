import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { publishEvent, type EventPublisher } from "../src/server/core/events/event-stream";
import { connectRedis } from "../src/server/core/redis/connection";
import { sweepScratch } from "../src/server/core/dependencies/dependency-runtime";
import type { ContainerRuntime } from "../src/server/core/runtime/container-runtime";
import { containerUserNote, resolveHostUser } from "../src/server/core/runtime/container-user";
import { reconcileContainers, type ReconcileReport } from "../src/server/core/runtime/reconciler";
import { isProcessAlive } from "../src/lib/process-alive";
import {
  DEFAULT_HEARTBEAT,
  listWorkers,
  writeHeartbeat,
  type HeartbeatTiming,
  type WorkerInfo,
} from "../src/server/core/redis/worker-registry";
import { startHeartbeat, type Heartbeat } from "./heartbeat";
import { stopAwarePublisher } from "./worker-publisher";
import { DEFAULT_FLOORS, type CapacityTracker } from "./capacity";
import { createJobHandlers } from "./job-handlers";
import { createQueueWorker } from "./queue-worker";
import { createTransferWorker } from "./transfer-worker";
import { handsBackFor, openDashboardLink, type DashboardLink } from "./dashboard-link";
import { closableRuntime, workerRuntime } from "./worker-runtime";
import { startContainerWarden } from "./container-warden";
import { shutdown } from "./worker-shutdown";
import type { WorkerOptions } from "./worker-options";
import type { WorkerIdentity } from "../src/server/core/runtime/container-spec";
import type { RegisteredJob } from "./job-handler";
import { gatewaySocketPath, startWorkerGatewayHost, type GatewayHost } from "./model-gateway-host";

const INSTANCE_KEY = "invariant:instance";

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
  publish: EventPublisher;
  leaving: () => string | null;
  link: DashboardLink | null;
  /** Where the gateway listens (chosen before the runtime, whose mount policy allows its folder). */
  socketPath: string;
}): Promise<{ gatewayHost: GatewayHost; handlers: Map<string, RegisteredJob> }> {
  const { options, link } = o;
  const gatewayHost = await startWorkerGatewayHost({
    config: options.modelGateway,
    dataDir: options.dataDir,
    workerId: o.identity.id,
    socketPath: o.socketPath,
    log: options.log,
    channel: link?.channel ?? null,
  });
  // redisUrl, dataDir, hostCa and workspaceKind come from the options
  const handlers = createJobHandlers({
    ...options,
    runtime: o.runtime,
    redis: o.redis,
    publish: o.publish,
    leaving: o.leaving,
    identity: o.identity,
    active: o.active,
    gatewayHost,
    // a worker on another host sends its changed files back from a plain copy (the overlay kind is for this host)
    ...(link
      ? { artifacts: link.artifacts, workspaceKind: "copy" as const, sendImage: link.sendImage, imagePush: link }
      : {}),
    modelRuns: gatewayHost.modelRuns,
  });
  return { gatewayHost, handlers };
}

/** A worker on another host serves image.send from a slot of its own, never behind its trials. */
function transferSlot(o: { options: WorkerOptions; handlers: Map<string, RegisteredJob>; info: WorkerInfo }) {
  const { options, info } = o;
  return createTransferWorker({
    ...options,
    handlers: o.handlers,
    context: { workerId: info.id, log: options.log },
    handsBack: handsBackFor({ id: info.id, host: info.host, remote: true }),
  });
}

/**
 * A BullMQ worker: turns jobs into work on this host's Docker engine and reports through Redis.
 * It never opens the database; the web process records what it publishes.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const hostUser = resolveHostUser();
  const info = describeWorker(options);
  const socketPath = gatewaySocketPath(options.dataDir, info.id);
  const { runtime, refuseContainers } = closableRuntime(workerRuntime(options, hostUser, socketPath));
  const redis = connectRedis({ url: options.redisUrl, name: "invariant-worker" });
  const instance = await installationId(redis);
  const identity = { id: info.id, host: info.host, pid: info.pid, instance };
  // before any container of this worker exists: once the worker is gone, its warden removes what it left
  const warden =
    options.warden === false
      ? null
      : startContainerWarden({ workerId: info.id, host: info.host, redisUrl: options.redisUrl, log: options.log });
  const active = new Set<string>();
  const { publish, abandon, leaving } = stopAwarePublisher(redis, options.dataDir, options.log);
  const link = await openDashboardLink({ options, runtime, info, onRefused: (reason) => options.onSelfStop?.(reason) });
  const jobSide = { options, runtime, redis, identity, active, publish, leaving, link, socketPath };
  const { gatewayHost, handlers } = await startJobSide(jobSide);
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
  const transfer = link ? transferSlot({ options, handlers, info }) : null;
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
  transfer?.run();
  options.log(`worker ${info.id} online (concurrency ${options.concurrency}; ${containerUserNote(hostUser)})`);

  link?.watch();
  let stopping: Promise<void> | null = null;
  return {
    info,
    reconcile,
    stop(reason) {
      const log = options.log;
      link?.close();
      stopping ??= Promise.all([
        transfer?.close(),
        shutdown({
          worker,
          timers,
          heartbeat: beating,
          gatewayHost,
          redis,
          runtime,
          info,
          warden,
          reason,
          log,
          onAbandon: abandon,
          refuseContainers,
        }),
      ]).then(() => undefined);
      return stopping;
    },
  };
}
