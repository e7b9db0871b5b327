import type { z } from "zod";
import type { JobDefinition } from "../src/server/jobs/job-catalog";

export interface JobContext {
  workerId: string;
  log: (message: string) => void;
}

/** A catalog entry plus what the worker does with it. */
export interface JobHandler<TSchema extends z.ZodType, TResult extends z.ZodType> extends JobDefinition<TSchema, TResult> {
  handler: (data: z.infer<TSchema>, context: JobContext) => Promise<z.infer<TResult>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds handlers of every job type
export type AnyJobHandler = JobHandler<any, any>;
