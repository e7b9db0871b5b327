import { DelayedError, WaitingError, Worker, type Job } from "bullmq";
import { QUEUE_NAME } from "../src/server/core/jobs/job-catalog";
import { queueConnection } from "../src/server/core/jobs/queue-connection";
import { trialRunJob } from "../src/server/core/jobs/study-jobs";
import { createCapacityTracker, type CapacityFloors, type CapacityTracker } from "./capacity";
import type { JobContext, RegisteredJob } from "./job-handler";

/**
 * How long a job's lock lasts without renewal. The main event loop renews it; a loop blocked past it
 * (a huge file hashed synchronously) would have BullMQ fail a job that is still running, so it is well
 * above any such stall. Dead workers are found by their heartbeat (the sweeper), not by this lock.
 */
const JOB_LOCK_MS = 120_000;

/** The trial a job runs, if it is a trial's. */
function trialOf(job: Job): string | null {
  if (job.name !== trialRunJob.name) return null;
  const data: unknown = job.data;
  const trialId = typeof data === "object" && data !== null ? (data as { trialId?: unknown }).trialId : undefined;
  return typeof trialId === "string" ? trialId : null;
}

/** How long a handed-back job waits before any worker may take it again. */
const HAND_BACK_MS = 2_000;

/**
 * The BullMQ worker: runs each job with its registered handler; a job name it does not know asks for an
 * upgrade. Placement (docs/architecture.md): it pulls a job only while one of its `concurrency` slots is
 * free (BullMQ fetches no more than that), and `gate` pauses pulling while a floor of free disk or memory
 * is crossed. A job that a paused worker's blocking fetch still returned is handed back to the queue
 * untouched (waiting again, for another worker or for this one once it resumes). `applyFloors` measures
 * the host and pauses or resumes pulling (the worker calls it every heartbeat interval).
 */
export function createQueueWorker(options: {
  redisUrl: string;
  dataDir: string;
  concurrency: number;
  version: string;
  floors: CapacityFloors;
  log: (message: string) => void;
  handlers: Map<string, RegisteredJob>;
  context: JobContext;
  /** Called when a job takes or frees a slot (the heartbeat advertises it at once). */
  onSlotsChanged: () => void;
  /** Jobs this worker leaves to others (a worker on another host: those bound to the dashboard's host). */
  handsBack?: ((job: { name: string; data: unknown }) => boolean) | null;
}): { worker: Worker; capacity: CapacityTracker; applyFloors: () => Promise<void> } {
  const { handlers } = options;
  const capacity = createCapacityTracker({
    dataDir: options.dataDir,
    slots: options.concurrency,
    floors: options.floors,
  });
  const worker = new Worker(
    QUEUE_NAME,
    async (job, token) => {
      if (capacity.blocked() !== null && token) {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      // handed back delayed, so this worker does not fetch it again at once while the others are busy
      if (options.handsBack?.(job) && token) {
        await job.moveToDelayed(Date.now() + HAND_BACK_MS, token);
        throw new DelayedError();
      }
      const handler = handlers.get(job.name);
      if (!handler)
        throw new Error(
          `This worker (version ${options.version}) has no handler for job "${job.name}". Upgrade the worker.`,
        );
      const slot = job.id ?? `${job.name}-${job.timestamp}`;
      capacity.started(slot, trialOf(job));
      options.onSlotsChanged();
      try {
        const lease = job.id && token ? { jobId: job.id, lock: token } : null;
        return await handler.run(job.data, { ...options.context, lease });
      } finally {
        capacity.ended(slot);
        options.onSlotsChanged();
      }
    },
    // a job whose worker died is not re-run behind the user's back: the reconciler reports it interrupted
    {
      connection: queueConnection(options.redisUrl),
      concurrency: options.concurrency,
      autorun: false,
      maxStalledCount: 0,
      lockDuration: JOB_LOCK_MS,
    },
  );
  worker.on("error", (error) => options.log(`worker: ${error.message}`));
  worker.on("failed", (job, error) =>
    options.log(`worker: job ${job?.name ?? "?"} ${job?.id ?? ""} failed: ${error.message}`),
  );
  const applyFloors = () =>
    pauseUnderFloors({ worker, capacity, log: options.log }).then(
      () => undefined,
      (error: unknown) => options.log(`capacity: could not measure the host: ${String(error)}`),
    );
  return { worker, capacity, applyFloors };
}

/**
 * Measures the host and pauses or resumes pulling as the floors say (running jobs go on either way);
 * logs each change. Returns the floor now crossed, or null.
 */
async function pauseUnderFloors(options: {
  worker: Worker;
  capacity: CapacityTracker;
  log: (message: string) => void;
}): Promise<string | null> {
  const { worker, capacity } = options;
  const wasBlocked = capacity.blocked();
  const blocked = await capacity.refresh();
  if (blocked !== null && !worker.isPaused()) {
    await worker.pause(true);
    options.log(`taking no new jobs: ${blocked}`);
  } else if (blocked === null && wasBlocked !== null) {
    await worker.resume();
    options.log("taking jobs again: free disk and memory are above their floors");
  }
  return blocked;
}
