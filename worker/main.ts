import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { publishEvent } from "../src/server/events/event-stream";
import { connectRedis } from "../src/server/redis/connection";
import { sweepScratch } from "../src/server/dependencies/dependency-runtime";
import { resolveHostCaBundle } from "../src/server/runtime/host-ca";
import { locateCodexBinary } from "../src/server/agents/codex-binary";
import { createDockerRuntime, type ContainerRuntime } from "../src/server/runtime/docker-runtime";
import { LABEL } from "../src/server/runtime/container-spec";
import { containerUserNote, resolveHostUser, type UnixUser } from "../src/server/runtime/container-user";
import { dataDirMountPolicy } from "../src/server/runtime/mount-policy";
import { packageRoot } from "../src/lib/package-info";
import { reconcileContainers, type ReconcileReport } from "../src/server/runtime/reconciler";
import { isProcessAlive } from "../src/server/system/process-alive";
import {
  DEFAULT_HEARTBEAT,
  listWorkers,
  removeHeartbeat,
  writeHeartbeat,
  type HeartbeatTiming,
  type WorkerInfo,
} from "../src/server/system/worker-registry";
import { startHeartbeat, type Heartbeat } from "./heartbeat";
import { stopAwarePublisher } from "./worker-publisher";
import { DEFAULT_FLOORS, type CapacityFloors, type CapacityTracker } from "./capacity";
import { createJobHandlers } from "./job-handlers";
import { createQueueWorker } from "./queue-worker";
import { startGatewayHost, type GatewayHost, type ModelGatewayConfig } from "./model-gateway-host";
import type { WorkspaceKindSetting } from "../src/server/workspaces/workspace-kind";

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

/** Removes every container this worker started (by its label), so none outlives it; returns how many. */
async function removeOwnContainers(runtime: ContainerRuntime, workerId: string): Promise<number> {
  const own = (await runtime.listManagedContainers()).filter(
    (container) => container.labels[LABEL.worker] === workerId,
  );
  await Promise.all(own.map((container) => runtime.removeContainer(container.id).catch(() => undefined)));
  return own.length;
}

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

/** This worker's container runtime: its mount policy, host CA bundle and the user its containers run as. */
function workerRuntime(options: WorkerOptions, hostUser: UnixUser) {
  const codex = locateCodexBinary();
  return createDockerRuntime({
    hostCaBundle: resolveHostCaBundle({ setting: options.hostCa ?? "auto" }),
    // containers run as the host user (never root unless a project asks), owning only data-dir folders
    hostUser,
    dataDir: options.dataDir,
    log: options.log,
    // containers get the data dir's folders, plus the bridge scripts and the Codex binary read-only
    mountPolicy: dataDirMountPolicy({
      dataDir: options.dataDir,
      readOnlyPaths: [path.join(packageRoot(), "assets"), ...(codex ? [path.dirname(codex.path)] : [])],
    }),
  });
}

/** A runtime that can be told to start no more containers (a stopping worker's last sweep must be the last word). */
function closableRuntime(inner: ContainerRuntime): { runtime: ContainerRuntime; refuseContainers: () => void } {
  let refusing = false;
  const createContainer: ContainerRuntime["createContainer"] = (spec) =>
    refusing ? Promise.reject(new Error("This worker is stopping.")) : inner.createContainer(spec);
  return { runtime: { ...inner, createContainer }, refuseContainers: () => (refusing = true) };
}

/** The first beat, with the capacity just measured; from then on a thread beats, so a busy event loop does not make this worker look dead. */
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
  const gatewayHost = await startGatewayHost({
    config: options.modelGateway,
    dataDir: options.dataDir,
    workerId: info.id,
    log: options.log,
  });
  // redisUrl, dataDir, hostCa and workspaceKind come from the options
  const handlers = createJobHandlers({ ...options, runtime, redis, publish, identity, active, gatewayHost });
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

  let stopping: Promise<void> | null = null;
  return {
    info,
    reconcile,
    stop(reason) {
      const log = options.log;
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
