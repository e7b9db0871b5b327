import { z } from "zod";
import { DEFAULT_RUN_TOKEN_BUDGET, networkModeSchema } from "../../../shared/project-schemas";
import { jobIdSchema, jobRelativePathSchema } from "../../../shared/job-path-schemas";
import { testFileViewSchema } from "../../../shared/study-schemas";
import { preflightStatusSchema, trialEndStateSchema } from "../../../shared/vocabulary";
import { harnessSchema } from "../agents/harness";
import { containerLimitsSchema } from "../runtime/container-limits";
import { tokenUsageSchema } from "../../../shared/token-usage";
import type { JobDefinition } from "./job-catalog";

/** What every run of a study's checks needs: the frozen image and snapshot, and the captured tests. */
const checksSchema = z.object({
  studyId: jobIdSchema,
  projectId: jobIdSchema,
  snapshotId: z.string().regex(/^[0-9a-f]{64}$/, "A snapshot id is 64 hex digits."),
  /** Image id (sha256:…) of the frozen environment version: immutable, unlike a tag. */
  image: z.string(),
  testCommand: z.string(),
  /** Relative to the workspace; no `..` (a forged job must not make the worker clear a file outside it). */
  junitPath: jobRelativePathSchema.nullable(),
  testFiles: z.array(testFileViewSchema.extend({ path: jobRelativePathSchema })),
  network: networkModeSchema,
  limits: containerLimitsSchema,
  /** The project's "Run as root" switch; off: containers run as the host user (container-user.ts). */
  runAsRoot: z.boolean().default(false),
  /** Bytes each of the trial's containers may write before it is stopped (the project's disk budget per trial). */
  diskBudgetBytes: z.number().int().positive().nullable().default(null),
  evalTimeoutMs: z.number().int().positive(),
});

/** Run the test command once on the untouched snapshot, before any model call. Job id: `preflight-<studyId>`. */
export const studyPreflightJob = {
  name: "study.preflight",
  schema: checksSchema,
  result: z.object({ status: preflightStatusSchema }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;
export type StudyPreflightJob = z.infer<typeof studyPreflightJob.schema>;

/**
 * A follow-up attempt (review feedback sent back to the agent): it starts from a copy of its parent trial's
 * workspace, in the parent's committed result image, with a copy of the parent's agent home, and resumes
 * the parent's conversation with the feedback as the prompt (`prompt`). The evaluation is as for any trial.
 */
export const followUpSourceSchema = z.object({
  parentTrialId: jobIdSchema,
  /** The parent's attempt whose agent home (its conversation) is copied. */
  parentAttempt: z.number().int().positive(),
  parentWorkspaceId: jobIdSchema,
  /** The parent's committed result image (sha256:…): the agent runs in it, with the tools it left. */
  agentImage: z.string().min(1),
  /** The conversation to resume (the CLI's thread or session id); null for a command harness. */
  resumeThreadId: z.string().min(1).max(200).nullable(),
  /** The parent's tokens: a resumed Codex thread reports its usage cumulatively. */
  threadUsageBefore: tokenUsageSchema.nullable().default(null),
});
export type FollowUpSource = z.infer<typeof followUpSourceSchema>;

/** One trial: workspace → agent run → commit → diff → evaluation → verdict. Job id: `trial-<trialId>-<attempt>`. */
export const trialRunJob = {
  name: "trial.run",
  schema: checksSchema.extend({
    trialId: jobIdSchema,
    attempt: z.number().int().positive(),
    prompt: z.string(),
    harness: harnessSchema,
    agentTimeoutMs: z.number().int().positive(),
    /** Input + output tokens the model gateway allows the agent (the study's budget, else the project's). */
    budgetTokens: z.number().int().positive().nullable().default(DEFAULT_RUN_TOKEN_BUDGET),
    /** Hosted tools and URL inputs through the gateway in network mode none too (the project's setting). */
    allowHostedTools: z.boolean().default(false),
    /** Set for a follow-up attempt (see followUpSourceSchema); null: a first attempt from the snapshot. */
    followUp: followUpSourceSchema.nullable().default(null),
  }),
  result: z.object({ state: trialEndStateSchema }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;
export type TrialRunJob = z.infer<typeof trialRunJob.schema>;

export function trialJobId(options: { trialId: string; attempt: number }): string {
  return `trial-${options.trialId}-${options.attempt}`;
}

export function preflightJobId(studyId: string): string {
  return `preflight-${studyId}`;
}
