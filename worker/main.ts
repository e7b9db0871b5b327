import { randomBytes } from "node:crypto";
import os from "node:os";
import { Worker } from "bullmq";
import { publishEvent } from "../src/server/events/event-stream";
import { QUEUE_NAME } from "../src/server/jobs/job-catalog";
import { connectRedis, queueConnection } from "../src/server/redis/connection";
import { createDockerRuntime } from "../src/server/runtime/docker-runtime";
import { HEARTBEAT_INTERVAL_MS, removeHeartbeat, writeHeartbeat, type WorkerInfo } from "../src/server/system/worker-registry";
import { registerJob, type RegisteredJob } from "./job-handler";
import { createSelfcheckHandler } from "./jobs/selfcheck";

export interface WorkerOptions {
  redisUrl: string;
  dataDir: string;
  concurrency: number;
  version: string;
  log: (message: string) => void;
}

export interface RunningWorker {
  info: WorkerInfo;
  stop(reason: string): Promise<void>;
}

/**
 * A BullMQ worker: turns jobs into work on this host's Docker engine and reports through Redis.
 * It never opens the database; the web process records what it publishes.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const runtime = createDockerRuntime();
  const handlers = new Map<string, RegisteredJob>();
  for (const job of [registerJob(createSelfcheckHandler({ runtime, dataDir: options.dataDir, redisUrl: options.redisUrl }))]) handlers.set(job.name, job);

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

  const worker = new Worker(
    QUEUE_NAME,
    async (job) => {
      const handler = handlers.get(job.name);
      if (!handler) throw new Error(`This worker (version ${options.version}) has no handler for job "${job.name}". Upgrade the worker.`);
      return handler.run(job.data, context);
    },
    { connection: queueConnection(options.redisUrl), concurrency: options.concurrency, autorun: true },
  );
  worker.on("error", (error) => options.log(`worker: ${error.message}`));
  worker.on("failed", (job, error) => options.log(`worker: job ${job?.name ?? "?"} ${job?.id ?? ""} failed: ${error.message}`));

  const beat = async () => {
    info.lastSeen = new Date().toISOString();
    await writeHeartbeat(redis, info);
  };
  await beat();
  const timer = setInterval(() => void beat().catch((error: unknown) => options.log(`heartbeat: ${String(error)}`)), HEARTBEAT_INTERVAL_MS);
  await publishEvent(redis, { type: "worker.online", workerId: info.id, data: { host: info.host, pid: info.pid, concurrency: info.concurrency } });
  options.log(`worker ${info.id} online (concurrency ${options.concurrency})`);

  let stopping: Promise<void> | null = null;
  return {
    info,
    stop(reason) {
      stopping ??= (async () => {
        clearInterval(timer);
        await worker.close();
        await removeHeartbeat(redis, info.id);
        await publishEvent(redis, { type: "worker.offline", workerId: info.id, data: { host: info.host, pid: info.pid, reason } });
        await redis.quit();
      })();
      return stopping;
    },
  };
}
