import { z } from "zod";
import { verdictSchema } from "./verdict-summary";
import { seconds } from "./zod-fields";

export const diffSummarySchema = z.object({ files: z.int(), insertions: z.int(), deletions: z.int() });

/**
 * What one attempt of a trial measured: the fields a worker reports in `trial.finished`, the database
 * keeps on the trial and the views and the report show.
 */
export const trialResultSchema = z.object({
  error: z.string().nullable(),
  verdict: verdictSchema.nullable(),
  exitCode: z.int().nullable(),
  agentSeconds: seconds.nullable(),
  evalSeconds: seconds.nullable(),
  commandsRun: z.int(),
  threadId: z.string().nullable(),
  harnessVersion: z.string().nullable(),
  committedImageId: z.string().nullable(),
  workspaceId: z.string().nullable(),
  diff: diffSummarySchema.nullable(),
});
export type TrialResult = z.infer<typeof trialResultSchema>;
