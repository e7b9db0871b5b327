import { z } from "zod";
import { capturedChangeSchema } from "./captured-files";
import { testSteeringChangeSchema } from "./test-steering";
import { intervalSchema, pairComparisonSchema } from "./configuration-comparison";
import { studyEnvironmentSchema, testFileViewSchema, trialAttemptViewSchema, trialViewSchema } from "./study-schemas";
import { testsMissingSchema } from "./test-integrity";
import { testMatrixSchema } from "./test-matrix";
import { trialManifestSchema } from "./trial-manifest";
import { studyBudgetSchema, studyCostsSchema } from "./study-cost-schemas";
import { trialOutcomeSchema, VERDICT_LEVELS } from "./trial-outcome";
import { testCountsSchema } from "./verdict-summary";
import { harnessKindSchema, reasoningEffortSchema } from "./vocabulary";
import { configurationLabels } from "./configuration-label";
import { count, isoDate } from "./zod-fields";

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
export const STUDY_REPORT_VERSION = 2;

export const reportStudySchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  projectId: z.string().min(1),
  projectName: z.string(),
  taskPrompt: z.string(),
  testCommand: z.string(),
  junitPath: z.string().nullable(),
  testFiles: z.array(testFileViewSchema),
  state: z.string().min(1),
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  concurrency: z.int().positive(),
  agentTimeoutSec: z.int().positive(),
  evalTimeoutSec: z.int().positive(),
  /** Tokens the model gateway allowed each trial; null: the project's budget per run (absent in older reports). */
  tokenBudget: z.int().positive().nullable().optional(),
});
export type ReportStudy = z.infer<typeof reportStudySchema>;

export const reportConfigurationSchema = z.object({
  /** The configuration's number ("Configuration 2" on the study page). */
  choice: z.int().positive(),
  harness: harnessKindSchema,
  /** The model; empty for a command configuration given none. */
  model: z.string(),
  reasoningEffort: reasoningEffortSchema,
  instructions: z.string(),
  command: z.string().nullable(),
  repeats: z.int().positive(),
  /** The configuration a retry edited into this one (added in version 1 as an optional field). */
  derivedFrom: z.int().positive().nullable().optional(),
  /**
   * The name the study page shows (src/shared/configuration-label.ts), unique in the report. Added in
   * version 1 as an optional field: a report without one gets the derived label when it is read.
   */
  label: z.string().min(1).max(200).optional(),
});
export type ReportConfiguration = z.infer<typeof reportConfigurationSchema> & { label: string };

/** An earlier attempt of a trial (added in version 1 as an optional field): what it ran with and measured. */
export const reportAttemptSchema = trialAttemptViewSchema.pick({
  attempt: true,
  choice: true,
  model: true,
  reasoningEffort: true,
  instructions: true,
  state: true,
  outcome: true,
  verdict: true,
  agentSeconds: true,
  evalSeconds: true,
  tokens: true,
  error: true,
  finishedAt: true,
});
export type ReportAttempt = z.infer<typeof reportAttemptSchema>;

/** A review comment on a trial: on a file's lines, a file, or the whole trial (path null). */
export const reportCommentSchema = z.object({
  path: z.string().nullable(),
  startLine: z.int().positive().nullable(),
  endLine: z.int().positive().nullable(),
  body: z.string(),
  author: z.string(),
  createdAt: isoDate,
  sentInTrial: z.string().nullable(),
});
export type ReportComment = z.infer<typeof reportCommentSchema>;

/**
 * The picked fields keep the view's checks: a trial's tokens are a `tokensSchema` whose total is input + output.
 * `state` is the stored state (`succeeded` for a run that was evaluated, whatever its verdict); `outcome`
 * says how the run ended in the product's words (`completed`, `agent-failed`, `timed-out`, ...) and
 * `verdictLevel` how many tests passed; both were added in version 1 as optional fields.
 */
export const reportTrialSchema = trialViewSchema
  .pick({
    id: true,
    choice: true,
    repeat: true,
    attempt: true,
    state: true,
    verdict: true,
    exitCode: true,
    agentSeconds: true,
    evalSeconds: true,
    tokens: true,
    threadId: true,
    harnessVersion: true,
    error: true,
    startedAt: true,
    finishedAt: true,
  })
  .extend({
    outcome: trialOutcomeSchema.nullable().optional(),
    verdictLevel: z.enum(VERDICT_LEVELS).nullable().optional(),
    /** The captured files the agent changed (added in version 1 as an optional field; null or absent = not checked). */
    capturedChanges: z.array(capturedChangeSchema).nullable().optional(),
    /**
     * The changed files that steer how tests run (added in version 1 as an optional field; null or absent =
     * not checked): read them before trusting a pass. `shown: false` = hidden from the review, not evaluated.
     */
    testSteering: z.array(testSteeringChangeSchema).nullable().optional(),
    /**
     * The integrity flag (added in version 1 as an optional field): tests the baseline counted that this
     * evaluation did not run; null or absent when none are missing. When set, `verdict` is judged against
     * the baseline's total (the missing tests count as failed) and `testsMissing.counted` is what ran.
     */
    testsMissing: testsMissingSchema.nullable().optional(),
    /** What this attempt ran on (version 2); null when it was never queued. */
    manifest: trialManifestSchema.nullable(),
    /** The attempts before `attempt`, oldest first. */
    earlierAttempts: z.array(reportAttemptSchema).optional(),
    /**
     * A follow-up attempt (review feedback sent back to the agent, version 2 as optional fields): the trial it
     * continued, its place ([1] for "Trial 1.2.1"), its number, and the prompt the agent read. A follow-up
     * is left out of `aggregates` and `comparisons`, which compare first attempts.
     */
    parentTrialId: z.string().min(1).nullable().optional(),
    followUpPath: z.array(z.int().positive()).optional(),
    number: z.string().optional(),
    feedback: z.string().nullable().optional(),
    /** The review comments on this trial, oldest first; `sentInTrial`: the follow-up that carried one to the agent. */
    comments: z.array(reportCommentSchema).optional(),
  });
export type ReportTrial = z.infer<typeof reportTrialSchema>;

const spreadSchema = z.object({ min: z.number().finite(), max: z.number().finite() }).nullable();

/** The trial an admin kept as the study's result (added in version 1 as an optional field). */
export const reportChosenSchema = z.object({
  trialId: z.string().min(1),
  note: z.string().nullable(),
  by: z.string(),
  at: isoDate,
});
export type ReportChosen = z.infer<typeof reportChosenSchema>;

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
  /** The pass rate's 95 % Wilson interval (absent from reports written before it existed). */
  passRateInterval: intervalSchema.nullable().optional(),
  /** Mean over finished trials with test counts of passed / total, and its 95 % t interval (null for one trial). */
  meanFractionPassed: z.number().min(0).max(1).nullable().optional(),
  meanFractionInterval: intervalSchema.nullable().optional(),
  medianAgentSeconds: z.number().finite().nullable(),
  medianTokens: z.number().finite().nullable(),
  agentSeconds: spreadSchema,
  tokens: spreadSchema,
  medianTestsPassed: z.number().finite().nullable(),
});
export type StudyAggregate = z.infer<typeof studyAggregateSchema>;

/** The configurations with a label each: the recorded one, or the derived one for an older report. */
function labelled(configurations: z.infer<typeof reportConfigurationSchema>[]) {
  const labels = configurationLabels(
    configurations.map((configuration) => ({ ...configuration, customLabel: configuration.label ?? null })),
  );
  return configurations.map((configuration) => ({
    ...configuration,
    label: labels.get(configuration.choice) ?? String(configuration.choice),
  }));
}

export const studyReportSchema = z
  .object({
    schema: z.literal(STUDY_REPORT_SCHEMA_ID),
    version: z.literal(STUDY_REPORT_VERSION),
    generatedAt: isoDate,
    study: reportStudySchema,
    environment: studyEnvironmentSchema,
    snapshotId: z.string().nullable(),
    /** The test counts of the untouched snapshot. */
    baseline: testCountsSchema.nullable(),
    configurations: z.array(reportConfigurationSchema).transform(labelled),
    trials: z.array(reportTrialSchema),
    aggregates: z.array(studyAggregateSchema),
    /** Every pair of configurations compared on their pass rates (absent from reports written before it existed). */
    comparisons: z.array(pairComparisonSchema).optional(),
    /** What the trials cost by the price table in force when the report was made (absent in older reports). */
    costs: studyCostsSchema.optional(),
    /** The study's budget over all its trials (absent in older reports). */
    budget: studyBudgetSchema.optional(),
    /** Tests × trials: each evaluated trial's status per test, and the tests that flip between repeats (absent from reports written before it existed). */
    testMatrix: testMatrixSchema.optional(),
    /** The chosen result; absent from reports written before it existed, null when none was chosen. */
    chosen: reportChosenSchema.nullable().optional(),
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
    if (report.chosen && !trialIds.has(report.chosen.trialId))
      ctx.addIssue({
        code: "custom",
        path: ["chosen", "trialId"],
        message: `The chosen trial ${report.chosen.trialId} is not one of the report's trials.`,
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
