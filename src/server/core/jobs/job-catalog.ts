import { z } from "zod";

/**
 * Every background job: its name and the schema both the enqueuer (web) and the worker parse with.
 * Workers add a handler to each entry (worker/jobs/*.ts).
 */
export const QUEUE_NAME = "invariant";

export interface JobDefinition<TSchema extends z.ZodType, TResult extends z.ZodType> {
  name: string;
  schema: TSchema;
  result: TResult;
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
