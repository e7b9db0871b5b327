import { DelayedError, Worker } from "bullmq";
import { TRANSFER_QUEUE_NAME } from "../src/server/core/jobs/job-catalog";
import { sendImageJob } from "../src/server/core/jobs/image-jobs";
import { queueConnection } from "../src/server/core/jobs/queue-connection";
import type { JobContext, RegisteredJob } from "./job-handler";

/** The jobs of the transfer queue (an upload of something this worker's host holds). */
export const TRANSFER_JOBS: ReadonlySet<string> = new Set([sendImageJob.name]);
/** As for the job slots (queue-worker.ts): a blocked event loop must not fail an upload that still runs. */
const JOB_LOCK_MS = 120_000;
/** How long a handed-back transfer waits before any worker may take it again. */
const HAND_BACK_MS = 2_000;
/** What a running upload gets to finish on a stop before it is cut off. */
const STOP_GRACE_MS = 5_000;

/**
 * A worker on another host's transfer slot: a BullMQ worker of concurrency 1 on the transfer queue
 * (image.send), beside its job slots, so "continue a result" is served while every job slot runs a long
 * trial. It takes no slot of the capacity the heartbeat advertises and ignores the floors (an upload only
 * reads). The ownership rule stays the job slots' one: a request meant for another host's engine is handed
 * back (delayed), and the upload goes under the lease of this job (its id and lock), which the dashboard
 * checks as for any job.
 */
export function createTransferWorker(options: {
  redisUrl: string;
  version: string;
  log: (message: string) => void;
  handlers: Map<string, RegisteredJob>;
  context: JobContext;
  handsBack: (job: { name: string; data: unknown }) => boolean;
  /** One transfer at a time (tests that hold jobs open take more). */
  concurrency?: number;
}): { worker: Worker; run: () => void; close: () => Promise<void> } {
  const worker = new Worker(
    TRANSFER_QUEUE_NAME,
    async (job, token) => {
      if (options.handsBack(job) && token) {
        await job.moveToDelayed(Date.now() + HAND_BACK_MS, token);
        throw new DelayedError();
      }
      const handler = TRANSFER_JOBS.has(job.name) ? options.handlers.get(job.name) : undefined;
      if (!handler)
        throw new Error(
          `This worker (version ${options.version}) takes no job "${job.name}" from the transfer queue (it takes ${[...TRANSFER_JOBS].join(", ")}).`,
        );
      const lease = job.id && token ? { jobId: job.id, lock: token } : null;
      return handler.run(job.data, { ...options.context, lease });
    },
    {
      connection: queueConnection(options.redisUrl),
      concurrency: options.concurrency ?? 1,
      autorun: false,
      maxStalledCount: 0,
      lockDuration: JOB_LOCK_MS,
    },
  );
  worker.on("error", (error) => options.log(`transfer worker: ${error.message}`));
  worker.on("failed", (job, error) =>
    options.log(`transfer worker: job ${job?.name ?? "?"} ${job?.id ?? ""} failed: ${error.message}`),
  );
  return {
    worker,
    run: () => void worker.run().catch((error: unknown) => options.log(`transfer worker: ${String(error)}`)),
    /** Lets a running upload finish for a few seconds, then cuts it off. */
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const graceful = worker.close().then(() => true);
      const done = await Promise.race([
        graceful.catch(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS))),
      ]);
      clearTimeout(timer);
      if (!done) await worker.close(true).catch(() => undefined);
    },
  };
}
