import { Queue } from "bullmq";
import { connectRedis } from "../redis/connection";
import { queueConnection } from "./queue-connection";
import { QUEUE_NAME } from "./job-catalog";

/** A job a worker runs right now: its name and data, and the lock token BullMQ gave that worker for it. */
export interface HeldJob {
  id: string;
  name: string;
  data: unknown;
  /** The token of the lock the running worker holds and renews (null once no worker holds it). */
  lock: string | null;
}

/** Reads which worker holds which running job (the worker API checks a worker's calls against it). */
export interface JobLocks {
  /** The job if it is running (active) now, with its lock; null when it is waiting, finished or gone. */
  held(jobId: string): Promise<HeldJob | null>;
  close(): Promise<void>;
}

export function createJobLocks(options: { redisUrl: string }): JobLocks {
  const queue = new Queue(QUEUE_NAME, {
    connection: { ...queueConnection(options.redisUrl), maxRetriesPerRequest: 1 },
  });
  queue.on("error", () => undefined);
  // BullMQ keeps a running job's lock token at `<job key>:lock` (its moveToActive and extendLock scripts)
  const redis = connectRedis({ url: options.redisUrl, name: "invariant-web-leases", failFast: true });
  return {
    async held(jobId) {
      const job = await queue.getJob(jobId);
      if (!job || (await job.getState()) !== "active") return null;
      const lock = await redis.get(`${queue.toKey(jobId)}:lock`);
      return { id: jobId, name: job.name, data: job.data as unknown, lock };
    },
    async close() {
      await queue.close();
      redis.disconnect();
    },
  };
}
