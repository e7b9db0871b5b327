import { Queue, QueueEvents } from "bullmq";
import type { z } from "zod";
import { queueConnection } from "./queue-connection";
import { QUEUE_NAME, QUEUE_NAMES, type JobDefinition } from "./job-catalog";

/** What the web side asks of the job queue; BullMQ stays behind it (only this folder and worker/ import bullmq). */
export interface JobQueue {
  /**
   * Parses `data` with the job's schema (the worker parses with the same one) and queues it. With a `jobId`,
   * queueing the same id again is a no-op. Finished jobs are kept for a while (`keep`, default 1000) so the
   * sweepers can still read their state; a job runs once (no automatic retries).
   */
  enqueue<S extends z.ZodType, R extends z.ZodType>(options: {
    job: JobDefinition<S, R>;
    data: z.input<S>;
    jobId?: string;
    keep?: number;
  }): Promise<{ id: string }>;
  /** Queues a job and waits for its result, parsed with the job's result schema. */
  runAndWait<S extends z.ZodType, R extends z.ZodType>(options: {
    job: JobDefinition<S, R>;
    data: z.input<S>;
    timeoutMs: number;
  }): Promise<z.output<R>>;
  /** A job's state, or "missing" once it is gone from the queue. */
  state(jobId: string): Promise<JobState>;
  /** Why a failed job failed, or null. */
  failedReason(jobId: string): Promise<string | null>;
  /** Removes a job that has not started; resolves to whether it was removed. */
  remove(jobId: string): Promise<boolean>;
  close(): Promise<void>;
}

export type JobState = "waiting" | "delayed" | "prioritized" | "active" | "completed" | "failed" | "missing";

export function createJobQueue(options: { redisUrl: string }): JobQueue {
  const connection = queueConnection(options.redisUrl);
  // adding, reading or removing a job fails fast while Redis is away (the caller says so) instead of hanging
  const open = (name: string) => new Queue(name, { connection: { ...connection, maxRetriesPerRequest: 1 } });
  const main = open(QUEUE_NAME);
  const queues = new Map<string, Queue>(QUEUE_NAMES.map((name) => [name, name === QUEUE_NAME ? main : open(name)]));
  // runAndWait is for jobs of the main queue (self-checks, builds)
  const queueEvents = new QueueEvents(QUEUE_NAME, { connection });
  // while Redis is away both report every reconnect attempt as an 'error' (printed to stderr twice a
  // second without a listener); the calls that need Redis fail on their own and health says why
  for (const queue of queues.values()) queue.on("error", () => undefined);
  queueEvents.on("error", () => undefined);

  async function add<S extends z.ZodType, R extends z.ZodType>(
    job: JobDefinition<S, R>,
    data: unknown,
    keep: number,
    jobId?: string,
  ) {
    const parsed = job.schema.parse(data);
    const queue = queues.get(job.queue ?? QUEUE_NAME) ?? main;
    return queue.add(job.name, parsed, {
      ...(jobId ? { jobId } : {}),
      removeOnComplete: keep,
      removeOnFail: keep,
      attempts: 1,
    });
  }

  /** The queue that holds the job (job ids do not repeat across queues), with its state. */
  async function find(jobId: string) {
    for (const queue of queues.values()) {
      const state = await queue.getJobState(jobId);
      if (state !== "unknown") return { queue, state };
    }
    return null;
  }

  return {
    async enqueue({ job, data, jobId, keep }) {
      const added = await add(job, data, keep ?? 1000, jobId);
      return { id: added.id ?? jobId ?? "" };
    },
    async runAndWait({ job, data, timeoutMs }) {
      if ((job.queue ?? QUEUE_NAME) !== QUEUE_NAME) throw new Error(`runAndWait takes jobs of ${QUEUE_NAME} only.`);
      const added = await add(job, data, 100);
      return job.result.parse(await added.waitUntilFinished(queueEvents, timeoutMs));
    },
    async state(jobId) {
      const found = await find(jobId);
      if (!found) return "missing";
      return found.state === "waiting-children" ? "waiting" : found.state;
    },
    async failedReason(jobId) {
      const found = await find(jobId);
      return (await found?.queue.getJob(jobId))?.failedReason ?? null;
    },
    async remove(jobId) {
      const found = await find(jobId);
      return found ? (await found.queue.remove(jobId).catch(() => 0)) === 1 : false;
    },
    async close() {
      await queueEvents.close();
      for (const queue of queues.values()) await queue.close();
    },
  };
}
