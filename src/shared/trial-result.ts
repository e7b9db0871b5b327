import { z } from "zod";
import { capturedChangeSchema, MAX_CAPTURED_CHANGES } from "./captured-files";
import { MAX_TEST_STEERING, testSteeringChangeSchema } from "./test-steering";
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
  /**
   * The captured files (tests, runner config) the agent changed, restored before the evaluation; empty when
   * it changed none; null when not checked (no evaluation, or a worker or report from before this field).
   */
  /** The model name the provider reported in its responses (null: none, or a worker from before this field). */
  reportedModel: z.string().max(200).nullable().default(null),
  capturedChanges: z.array(capturedChangeSchema).max(MAX_CAPTURED_CHANGES).nullable().default(null),
  /**
   * The changed files that steer how tests run (src/shared/test-steering.ts): a reviewer reads them before
   * trusting a pass; empty when none; null when not checked (no evaluation, or a worker from before this field).
   */
  testSteering: z.array(testSteeringChangeSchema).max(MAX_TEST_STEERING).nullable().default(null),
});
export type TrialResult = z.infer<typeof trialResultSchema>;
