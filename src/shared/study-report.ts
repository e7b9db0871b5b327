import { z } from "zod";

/**
 * The exported record of one study: what was asked, in which environment, which configurations ran,
 * what each trial measured, and the per-configuration aggregates. Shared by the server (which builds
 * and renders it) and the browser (which may read a downloaded one).
 *
 * Versioning: `version` stays 1 for additive changes (a new optional or nullable field, a new enum
 * value in a free-text field). Renaming or removing a field, or changing its type or meaning, bumps it.
 * Readers of version 1 ignore fields they do not know; parsing here strips them.
 */
export const STUDY_REPORT_SCHEMA_ID = "invariant-web/study-report";
export const STUDY_REPORT_VERSION = 1;

const isoDate = z.iso.datetime({
  offset: true,
  error: "Expected an ISO 8601 date-time, such as 2025-01-31T12:00:00.000Z.",
});
const count = z.int().nonnegative();
const seconds = z.number().nonnegative().finite();

export const reasoningEffortSchema = z.enum(["minimal", "low", "medium", "high", "xhigh"]);
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

export const harnessSchema = z.enum(["codex", "command"]);
export type Harness = z.infer<typeof harnessSchema>;

export const trialStateSchema = z.enum([
  "queued",
  "preparing",
  "agent",
  "evaluating",
  "succeeded",
  "failed",
  "error",
  "stopped",
  "interrupted",
]);
export type TrialState = z.infer<typeof trialStateSchema>;

/** The states a trial does not leave: it has finished, whatever the outcome. */
export const TERMINAL_TRIAL_STATES: readonly TrialState[] = ["succeeded", "failed", "error", "stopped", "interrupted"];

export const reportTestFileSchema = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "A sha256 is 64 lowercase hex digits."),
  bytes: count,
});
export type ReportTestFile = z.infer<typeof reportTestFileSchema>;

export const reportStudySchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  projectId: z.string().min(1),
  projectName: z.string(),
  taskPrompt: z.string(),
  testCommand: z.string(),
  junitPath: z.string().nullable(),
  testFiles: z.array(reportTestFileSchema),
  state: z.string().min(1),
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  concurrency: z.int().positive(),
  agentTimeoutSec: z.int().positive(),
  evalTimeoutSec: z.int().positive(),
});
export type ReportStudy = z.infer<typeof reportStudySchema>;

export const reportEnvironmentSchema = z.object({
  versionId: z.string().nullable(),
  version: z.int().positive().nullable(),
  imageId: z.string().nullable(),
  imageDigest: z.string().nullable(),
});
export type ReportEnvironment = z.infer<typeof reportEnvironmentSchema>;

/** Test counts read from the test command's output; `source` names the parser (junit, node-test, exit-code, ...). */
const testCountsShape = {
  passed: count.nullable(),
  failed: count.nullable(),
  skipped: count.nullable(),
  total: count.nullable(),
  source: z.string().min(1),
};

export const reportBaselineSchema = z.object(testCountsShape);
export type ReportBaseline = z.infer<typeof reportBaselineSchema>;

export const reportVerdictSchema = z.object({ ...testCountsShape, ok: z.boolean() });
export type ReportVerdict = z.infer<typeof reportVerdictSchema>;

export const reportConfigurationSchema = z.object({
  choice: z.int().positive(),
  harness: harnessSchema,
  model: z.string(),
  reasoningEffort: reasoningEffortSchema,
  instructions: z.string(),
  command: z.string().nullable(),
  repeats: z.int().positive(),
});
export type ReportConfiguration = z.infer<typeof reportConfigurationSchema>;

/** Token usage. `cachedInput` is part of `input`, `reasoning` is part of `output`; `total` = input + output. */
export const reportTokensSchema = z
  .object({ input: count, cachedInput: count, output: count, reasoning: count, total: count })
  .refine((tokens) => tokens.total === tokens.input + tokens.output, {
    message: "tokens.total must equal input + output (cached input is part of input, reasoning part of output).",
    path: ["total"],
  });
export type ReportTokens = z.infer<typeof reportTokensSchema>;

/** Builds a token record with its total, so callers never add the parts themselves. */
export function reportTokens(options: {
  input: number;
  cachedInput: number;
  output: number;
  reasoning: number;
}): ReportTokens {
  return { ...options, total: options.input + options.output };
}

export const reportTrialSchema = z.object({
  id: z.string().min(1),
  choice: z.int().positive(),
  repeat: z.int().positive(),
  attempt: z.int().positive(),
  state: trialStateSchema,
  verdict: reportVerdictSchema.nullable(),
  exitCode: z.int().nullable(),
  agentSeconds: seconds.nullable(),
  evalSeconds: seconds.nullable(),
  tokens: reportTokensSchema,
  threadId: z.string().nullable(),
  harnessVersion: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
});
export type ReportTrial = z.infer<typeof reportTrialSchema>;

const spreadSchema = z.object({ min: z.number().finite(), max: z.number().finite() }).nullable();

export const studyAggregateSchema = z.object({
  choice: z.int().positive(),
  /** Trials of this configuration, in any state. */
  trials: count,
  /** Trials in a terminal state (succeeded, failed, error, stopped, interrupted). */
  finished: count,
  /** Finished trials whose verdict passed every test it counted (total > 0), or passed by exit code. */
  passedAll: count,
  /** passedAll / finished, from 0 to 1; null when nothing finished. */
  passRate: z.number().min(0).max(1).nullable(),
  medianAgentSeconds: z.number().finite().nullable(),
  medianTokens: z.number().finite().nullable(),
  agentSeconds: spreadSchema,
  tokens: spreadSchema,
  medianTestsPassed: z.number().finite().nullable(),
});
export type StudyAggregate = z.infer<typeof studyAggregateSchema>;

export const studyReportSchema = z
  .object({
    schema: z.literal(STUDY_REPORT_SCHEMA_ID),
    version: z.literal(STUDY_REPORT_VERSION),
    generatedAt: isoDate,
    study: reportStudySchema,
    environment: reportEnvironmentSchema,
    snapshotId: z.string().nullable(),
    baseline: reportBaselineSchema.nullable(),
    configurations: z.array(reportConfigurationSchema),
    trials: z.array(reportTrialSchema),
    aggregates: z.array(studyAggregateSchema),
  })
  .superRefine((report, ctx) => {
    const choices = new Set<number>();
    report.configurations.forEach((configuration, index) => {
      if (choices.has(configuration.choice)) {
        ctx.addIssue({
          code: "custom",
          path: ["configurations", index, "choice"],
          message: `Choice ${configuration.choice} appears twice.`,
        });
      }
      choices.add(configuration.choice);
    });
    const trialIds = new Set<string>();
    report.trials.forEach((trial, index) => {
      if (!choices.has(trial.choice)) {
        ctx.addIssue({
          code: "custom",
          path: ["trials", index, "choice"],
          message: `Trial ${trial.id} names choice ${trial.choice}, which is not a configuration of this study.`,
        });
      }
      if (trialIds.has(trial.id))
        ctx.addIssue({ code: "custom", path: ["trials", index, "id"], message: `Trial id ${trial.id} appears twice.` });
      trialIds.add(trial.id);
    });
    report.aggregates.forEach((aggregate, index) => {
      if (!choices.has(aggregate.choice)) {
        ctx.addIssue({
          code: "custom",
          path: ["aggregates", index, "choice"],
          message: `Aggregate for choice ${aggregate.choice}, which is not a configuration of this study.`,
        });
      }
    });
  });
export type StudyReport = z.infer<typeof studyReportSchema>;
