import type { Worker } from "bullmq";
import type { Redis } from "ioredis";
import { publishEvent } from "../src/server/core/events/event-stream";
import { removeHeartbeat, type WorkerInfo } from "../src/server/core/redis/worker-registry";
import type { ContainerRuntime } from "../src/server/core/runtime/container-runtime";
import type { ContainerWarden } from "./container-warden";
import type { Heartbeat } from "./heartbeat";
import type { GatewayHost } from "./model-gateway-host";
import { LABEL } from "../src/server/core/runtime/container-spec";

/** Running jobs get this long to finish on a stop before their containers are stopped. */
export const STOP_GRACE_MS = 5_000;
/** What a Redis call on the way out may take: a Redis that died with the launcher must not hold up the rest. */
const REDIS_CALL_MS = 2_000;
/** What the forced close of the queue worker may take (it waits on Redis too). */
const FORCED_CLOSE_MS = 3_000;
/** What the given-up jobs may take to end once their containers are gone. */
const JOBS_END_MS = 5_000;
/** What removing the project bridges left idle may take (each waits for its bridge's lock). */
const NETWORKS_MS = 5_000;

/** Removes every container this worker started (by its label), so none outlives it; returns how many. */
export async function removeOwnContainers(runtime: ContainerRuntime, workerId: string): Promise<number> {
  const own = (await runtime.listManagedContainers()).filter(
    (container) => container.labels[LABEL.worker] === workerId,
  );
  await Promise.all(own.map((container) => runtime.removeContainer(container.id).catch(() => undefined)));
  return own.length;
}

/** Resolves with the work's result, or undefined once `ms` passed or it failed: the stop goes on either way. */
function bounded<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.catch(() => undefined),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
  ]).finally(() => clearTimeout(timer));
}

export interface ShutdownOptions {
  worker: Worker;
  timers: NodeJS.Timeout[];
  heartbeat: Heartbeat;
  gatewayHost: GatewayHost;
  redis: Redis;
  runtime: ContainerRuntime;
  info: WorkerInfo;
  warden: ContainerWarden | null;
  reason: string;
  log: (message: string) => void;
  /** Hands the running trials to recovery: they end `interrupted`, naming the step they were in (worker-publisher.ts). */
  onAbandon: (reason: string) => void;
  /** From here on no container may start or be committed: one started after the last sweep would outlive the worker. */
  refuseContainers: () => void;
}

/** Past the grace: the worker is gone for the sweeper first, then every container it started is removed. */
async function abandonJobs(options: ShutdownOptions): Promise<void> {
  const { worker, redis, info, runtime } = options;
  options.refuseContainers();
  options.onAbandon(`this worker is stopping (${options.reason})`);
  // gone for the sweeper before its jobs fail with their containers: a failed job of a live worker would
  // end its trial `error`, while a trial whose worker stopped is `interrupted` and retryable. Bounded: with
  // Redis gone (it dies with a killed launcher) the containers must still go at once
  if (redis.status === "ready") {
    await options.heartbeat.stop();
    await bounded(removeHeartbeat(redis, info.id), REDIS_CALL_MS);
  }
  const sweep = setInterval(() => void removeOwnContainers(runtime, info.id).catch(() => undefined), 500);
  const removed = await removeOwnContainers(runtime, info.id).catch(() => 0);
  options.log(
    `stopping (${options.reason}): jobs still running after ${STOP_GRACE_MS / 1000} s; removed their ${removed} containers`,
  );
  await bounded(worker.close(true), FORCED_CLOSE_MS);
  clearInterval(sweep);
  await removeOwnContainers(runtime, info.id).catch(() => 0);
}

/**
 * Graceful first: running jobs get STOP_GRACE_MS to finish. Then the containers they started (agent,
 * evaluation, preflight, build) are removed — again while the forced close runs, since a job may start
 * its next step's container — so the worker leaves none behind; their trials are reported interrupted
 * (the sweeper sees this worker gone), each naming the step it was in. Redis calls are bounded, so a
 * Redis that went away first (a killed launcher takes its private Redis along) does not keep a
 * container running. Once all is done the container warden is released; a stop that never gets there
 * (its process exits at its deadline) or that could not reach Redis leaves the warden to remove what is
 * left and drop the heartbeat.
 */
export async function shutdown(options: ShutdownOptions): Promise<void> {
  const { worker, redis, info } = options;
  for (const timer of options.timers) clearInterval(timer);
  let forced: NodeJS.Timeout | undefined;
  const closed = worker.close().then(() => true);
  const finished = await Promise.race([
    closed,
    new Promise<boolean>((resolve) => (forced = setTimeout(() => resolve(false), STOP_GRACE_MS))),
  ]);
  clearTimeout(forced);
  if (!finished) {
    await abandonJobs(options);
    // their containers gone, the jobs end at once: each writes its interruption into its trial's log
    await bounded(closed, JOBS_END_MS);
  }
  await options.gatewayHost.close();
  // the project bridges no container is on any more (a trial whose container was never created leaves its bridge)
  await bounded(options.runtime.removeIdleProjectNetworks(), NETWORKS_MS);
  await options.heartbeat.stop();
  // with Redis away nobody hears these: the warden is not released, and tries again once this process is gone
  const reachable = redis.status === "ready";
  if (reachable) {
    await bounded(removeHeartbeat(redis, info.id), REDIS_CALL_MS);
    const offline = { host: info.host, pid: info.pid, reason: options.reason };
    await bounded(publishEvent(redis, { type: "worker.offline", workerId: info.id, data: offline }), REDIS_CALL_MS);
  }
  if (!reachable || !(await bounded(redis.quit(), REDIS_CALL_MS))) redis.disconnect();
  if (reachable) options.warden?.release();
}
