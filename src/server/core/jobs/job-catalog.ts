import { z } from "zod";

/**
 * Every background job: its name and the schema both the enqueuer (web) and the worker parse with.
 * Workers add a handler to each entry (worker/jobs/*.ts).
 */
export const QUEUE_NAME = "invariant";
/**
 * Transfers (image.send) have a queue of their own, taken by a BullMQ worker of one slot beside the job slots
 * of every worker on another host (worker/transfer-worker.ts): a request never waits behind long trials.
 */
export const TRANSFER_QUEUE_NAME = "invariant-transfer";
/** Every queue jobs go to (the web side reads a job's state and lock in whichever holds it). */
export const QUEUE_NAMES = [QUEUE_NAME, TRANSFER_QUEUE_NAME] as const;

export interface JobDefinition<TSchema extends z.ZodType, TResult extends z.ZodType> {
  name: string;
  schema: TSchema;
  result: TResult;
  /** The queue it goes to (default QUEUE_NAME). */
  queue?: (typeof QUEUE_NAMES)[number];
}

const checkSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(["ok", "warn", "fail"]),
  required: z.boolean(),
  detail: z.string(),
  fix: z.string().nullable(),
});

export const selfcheckJob = {
  name: "worker.selfcheck",
  schema: z.object({ requestedAt: z.string() }),
  result: z.object({
    workerId: z.string(),
    host: z.string(),
    pid: z.number(),
    ok: z.boolean(),
    checks: z.array(checkSchema),
  }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;

export type SelfcheckResult = z.infer<typeof selfcheckJob.result>;
