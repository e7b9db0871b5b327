import { Queue } from "bullmq";
import { connectRedis } from "../redis/connection";
import { sendImageJob } from "./image-jobs";
import { queueConnection } from "./queue-connection";
import { QUEUE_NAME, TRANSFER_QUEUE_NAME } from "./job-catalog";

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

/**
 * Looks in the main queue, then in the transfer queue (image.send jobs: only those count there, so a job of
 * another name in it grants nothing).
 */
export function createJobLocks(options: { redisUrl: string }): JobLocks {
  const open = (name: string) => {
    const queue = new Queue(name, { connection: { ...queueConnection(options.redisUrl), maxRetriesPerRequest: 1 } });
    queue.on("error", () => undefined);
    return queue;
  };
  const queues = [
    { queue: open(QUEUE_NAME), names: null },
    { queue: open(TRANSFER_QUEUE_NAME), names: new Set([sendImageJob.name]) },
  ];
  // BullMQ keeps a running job's lock token at `<job key>:lock` (its moveToActive and extendLock scripts)
  const redis = connectRedis({ url: options.redisUrl, name: "invariant-web-leases", failFast: true });
  return {
    async held(jobId) {
      for (const { queue, names } of queues) {
        const job = await queue.getJob(jobId);
        if (!job || (names && !names.has(job.name))) continue;
        if ((await job.getState()) !== "active") return null;
        const lock = await redis.get(`${queue.toKey(jobId)}:lock`);
        return { id: jobId, name: job.name, data: job.data as unknown, lock };
      }
      return null;
    },
    async close() {
      for (const { queue } of queues) await queue.close();
      redis.disconnect();
    },
  };
}
