import type { z } from "zod";
import type { JobDefinition } from "../src/server/core/jobs/job-catalog";

export interface JobContext {
  workerId: string;
  log: (message: string) => void;
  /** The job's id and the lock BullMQ gave this worker for it: a worker on another host names it on every call. */
  lease?: { jobId: string; lock: string } | null;
}

/** A catalog entry plus what the worker does with it. */
export interface JobHandler<TSchema extends z.ZodType, TResult extends z.ZodType> extends JobDefinition<
  TSchema,
  TResult
> {
  handler: (data: z.infer<TSchema>, context: JobContext) => Promise<z.infer<TResult>>;
}

/** A handler in the worker's registry: data and result are parsed with the catalog's schemas. */
export interface RegisteredJob {
  name: string;
  run: (data: unknown, context: JobContext) => Promise<unknown>;
}

export function registerJob<TSchema extends z.ZodType, TResult extends z.ZodType>(
  job: JobHandler<TSchema, TResult>,
): RegisteredJob {
  return {
    name: job.name,
    run: async (data, context) => job.result.parse(await job.handler(job.schema.parse(data), context)),
  };
}
