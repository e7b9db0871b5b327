import { randomBytes } from "node:crypto";
import os from "node:os";
import { Worker } from "bullmq";
import { publishEvent, type EventInput } from "../src/server/events/event-stream";
import { QUEUE_NAME } from "../src/server/jobs/job-catalog";
import { connectRedis } from "../src/server/redis/connection";
import { queueConnection } from "../src/server/jobs/queue-connection";
import { createDockerRuntime } from "../src/server/runtime/docker-runtime";
import {
  HEARTBEAT_INTERVAL_MS,
  removeHeartbeat,
  writeHeartbeat,
  type WorkerInfo,
} from "../src/server/system/worker-registry";
import { registerJob, type RegisteredJob } from "./job-handler";
import { createSelfcheckHandler } from "./jobs/selfcheck";
import { createPrepareEnvironmentHandler, createRemoveImageHandler } from "./jobs/environment";
import { createAgentRunHandler } from "./jobs/agent";
import { createPreflightHandler, createTrialRunHandler } from "./jobs/study";
import { runAgent, stopRun, type AgentRunDeps } from "../src/server/agents/agent-run";
import { trialStopKey } from "../src/server/jobs/study-jobs";
import { startGatewayHost, type ModelGatewayConfig } from "./model-gateway-host";
import path from "node:path";
import { packageRoot } from "../src/lib/package-info";
import { locateCodexBinary } from "../src/server/agents/codex-binary";
import { reconcileContainers, type ReconcileReport } from "../src/server/runtime/reconciler";
import { listWorkers } from "../src/server/system/worker-registry";
import { isProcessAlive } from "../src/server/system/process-alive";

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
}

export interface RunningWorker {
  info: WorkerInfo;
  reconcile(): Promise<ReconcileReport>;
  stop(reason: string): Promise<void>;
}

/**
 * A BullMQ worker: turns jobs into work on this host's Docker engine and reports through Redis.
 * It never opens the database; the web process records what it publishes.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const runtime = createDockerRuntime();
  const redis = connectRedis({ url: options.redisUrl, name: "invariant-worker" });
  const info: WorkerInfo = {
    id: `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
    host: os.hostname(),
    pid: process.pid,
    concurrency: options.concurrency,
    version: options.version,
    startedAt: new Date().toISOString(),
    lastSeen: new Date().toISOString(),
  };
  const context = { workerId: info.id, log: options.log };
  // one Redis = one installation; containers are labelled with it so reconcilers of other installations leave them alone
  await redis.set(INSTANCE_KEY, randomBytes(8).toString("hex"), "NX");
  const instance = (await redis.get(INSTANCE_KEY)) ?? "unknown";
  const identity = { id: info.id, host: info.host, pid: info.pid, instance };
  const active = new Set<string>();
  const publish = (event: EventInput) => publishEvent(redis, event);
  const gatewayHost = await startGatewayHost({
    config: options.modelGateway,
    dataDir: options.dataDir,
    workerId: info.id,
    log: options.log,
  });
  const codex = locateCodexBinary();
  const agentDeps: AgentRunDeps = {
    runtime,
    gateway: gatewayHost.gateway,
    gatewaySocketPath: gatewayHost.socket.path,
    bridgeDir: path.join(packageRoot(), "assets"),
    publish,
    worker: identity,
    active,
    codexVersion: codex?.version ?? null,
  };
  const handlers = new Map<string, RegisteredJob>();
  for (const job of [
    registerJob(createSelfcheckHandler({ runtime, dataDir: options.dataDir, redisUrl: options.redisUrl })),
    registerJob(createPrepareEnvironmentHandler({ runtime, codex, publish, worker: identity, active })),
    registerJob(createRemoveImageHandler({ runtime })),
    registerJob(createAgentRunHandler(agentDeps)),
    registerJob(createPreflightHandler({ runtime, dataDir: options.dataDir, publish, worker: identity, active })),
    registerJob(
      createTrialRunHandler({
        runtime,
        dataDir: options.dataDir,
        publish,
        worker: identity,
        active,
        runAgent: (input, onEvent) => runAgent({ ...agentDeps, onEvent }, input),
        stopAgent: stopRun,
        meteredUsage: (runId) => gatewayHost.gateway.usage(runId),
        stopRequested: (trialId) => redis.get(trialStopKey(trialId)),
      }),
    ),
  ]) {
    handlers.set(job.name, job);
  }
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

  const worker = new Worker(
    QUEUE_NAME,
    async (job) => {
      const handler = handlers.get(job.name);
      if (!handler)
        throw new Error(
          `This worker (version ${options.version}) has no handler for job "${job.name}". Upgrade the worker.`,
        );
      return handler.run(job.data, context);
    },
    // a job whose worker died is not re-run behind the user's back: the reconciler reports it interrupted
    {
      connection: queueConnection(options.redisUrl),
      concurrency: options.concurrency,
      autorun: false,
      maxStalledCount: 0,
    },
  );
  worker.on("error", (error) => options.log(`worker: ${error.message}`));
  worker.on("failed", (job, error) =>
    options.log(`worker: job ${job?.name ?? "?"} ${job?.id ?? ""} failed: ${error.message}`),
  );

  const beat = async () => {
    info.lastSeen = new Date().toISOString();
    await writeHeartbeat(redis, info);
  };
  await beat();
  // clean up after a crashed predecessor before taking new work
  await reconcile().catch((error: unknown) => options.log(`reconciler: ${String(error)}`));
  void worker.run().catch((error: unknown) => options.log(`worker: ${String(error)}`));
  const reconcileTimer = setInterval(
    () => void reconcile().catch((error: unknown) => options.log(`reconciler: ${String(error)}`)),
    options.reconcileEveryMs ?? 60_000,
  );
  const timer = setInterval(
    () => void beat().catch((error: unknown) => options.log(`heartbeat: ${String(error)}`)),
    HEARTBEAT_INTERVAL_MS,
  );
  await publishEvent(redis, {
    type: "worker.online",
    workerId: info.id,
    data: { host: info.host, pid: info.pid, concurrency: info.concurrency },
  });
  options.log(`worker ${info.id} online (concurrency ${options.concurrency})`);

  let stopping: Promise<void> | null = null;
  return {
    info,
    reconcile,
    stop(reason) {
      stopping ??= (async () => {
        clearInterval(timer);
        clearInterval(reconcileTimer);
        // graceful first (running jobs finish); BullMQ's blocking wait for new jobs can take seconds, so force after 5 s
        let forced: NodeJS.Timeout | undefined;
        await Promise.race([worker.close(), new Promise<void>((resolve) => (forced = setTimeout(resolve, 5_000)))]);
        clearTimeout(forced);
        await worker.close(true);
        await gatewayHost.close();
        await removeHeartbeat(redis, info.id);
        await publishEvent(redis, {
          type: "worker.offline",
          workerId: info.id,
          data: { host: info.host, pid: info.pid, reason },
        });
        await redis.quit();
      })();
      return stopping;
    },
  };
}
