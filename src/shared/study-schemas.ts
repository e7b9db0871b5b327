import { z } from "zod";
import type { AgentConfiguration } from "./project-schemas";
import { tokensSchema } from "./token-usage";
import { trialOutcomeSchema, type TrialOutcome } from "./trial-outcome";
import { capturedChangeSchema, capturedFileKindSchema, capturedFileRoleSchema } from "./captured-files";
import { testsMissingSchema } from "./test-integrity";
import { testSteeringChangeSchema } from "./test-steering";
import { trialManifestSchema } from "./trial-manifest";
import { trialResultSchema } from "./trial-result";
import { verdictSchema, type VerdictView } from "./verdict-summary";
import type { ShownStudyState } from "./study-state";
import { harnessKindSchema, reasoningEffortSchema, trialStateSchema, type StudyState } from "./vocabulary";
import { count, isoDate } from "./zod-fields";

/**
 * Views of studies (experiments) and their trials, shared by server and browser (inputs: study-inputs.ts).
 * A study runs every configuration `repeats` times on one frozen snapshot and environment image, and
 * judges each trial with the same captured test files and test command.
 */

export interface ConfigurationView extends AgentConfiguration {
  id: string;
  choice: number;
  /** The name every page, report and the CLI show (configuration-label.ts): unique within the study. */
  label: string;
  /** The label given in the form or study file; null: derived. */
  customLabel: string | null;
  overrides: string[];
  command: string | null;
  repeats: number;
  /** The configuration a retry edited into this one (its number), or null for one from the form. */
  derivedFrom: number | null;
}

/** An earlier attempt of a trial, kept when it was retried: what it ran with and what it measured. */
export const trialAttemptViewSchema = z.object({
  attempt: z.int().positive(),
  /** The number of the configuration it ran with. */
  choice: z.int().positive(),
  harness: harnessKindSchema,
  model: z.string(),
  reasoningEffort: reasoningEffortSchema,
  instructions: z.string(),
  state: trialStateSchema,
  outcome: trialOutcomeSchema.nullable(),
  error: z.string().nullable(),
  verdict: verdictSchema.nullable(),
  exitCode: z.int().nullable(),
  agentSeconds: z.number().nullable(),
  evalSeconds: z.number().nullable(),
  tokens: tokensSchema,
  commandsRun: z.int(),
  workspaceId: z.string().nullable(),
  committedImageId: z.string().nullable(),
  /** As on the trial: the captured files this attempt's agent changed (null: not checked). */
  capturedChanges: z.array(capturedChangeSchema).nullable().default(null),
  /** As on the trial: the changed files that steer how tests run (null: not checked). */
  testSteering: z.array(testSteeringChangeSchema).nullable().default(null),
  /** As on the trial: the tests its evaluation did not run, against the baseline (null: none missing). */
  testsMissing: testsMissingSchema.nullable().default(null),
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  retriedAt: isoDate,
  retriedBy: z.string(),
});
export type TrialAttemptView = z.infer<typeof trialAttemptViewSchema>;

/** A trial's current attempt: where it is and what it measured (the report picks its fields from here). */
export const trialViewSchema = trialResultSchema.extend({
  id: z.string().min(1),
  configurationId: z.string(),
  choice: z.int().positive(),
  /** Which repeat of its configuration it is (a follow-up has its parent's repeat). */
  repeat: z.int().positive(),
  /** A follow-up attempt (review feedback sent back to the agent): the trial it continued; null for a first attempt. */
  parentTrialId: z.string().nullable().default(null),
  /** Its place among follow-ups (domain-names.ts): [] for a first attempt, [1] for "Trial 3.2.1", [1, 1] for "3.2.1.1". */
  followUpPath: z.array(z.int().positive()).default([]),
  /** Which follow-up of its parent it is (the last of `followUpPath`); null for a first attempt. */
  followUpNumber: z.int().positive().nullable().default(null),
  /** The trial's number as every page shows it: "3.2", or "3.2.1" for a follow-up. */
  number: z.string().default(""),
  /** A follow-up's prompt: the review comments it was sent, as the agent read them; null for a first attempt. */
  feedback: z.string().nullable().default(null),
  attempt: z.int().positive(),
  state: trialStateSchema,
  /** How the run ended (completed, agent-failed, timed-out, ...), whatever the verdict; null until it ends. */
  outcome: trialOutcomeSchema.nullable(),
  step: z.string(),
  tokens: tokensSchema,
  /**
   * The integrity flag: tests the baseline counted that this evaluation did not run (null: none missing).
   * When set, `verdict` is already judged against the baseline's total (the missing tests count as failed).
   */
  testsMissing: testsMissingSchema.nullable().default(null),
  /** What this attempt ran on (src/shared/trial-manifest.ts); null until it is queued, or for a trial from before manifests. */
  manifest: trialManifestSchema.nullable().default(null),
  queuedAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  /** The attempts before this one, oldest first (empty for a trial never retried). */
  attempts: z.array(trialAttemptViewSchema),
  /** The worker that ran (or runs) this attempt, as its heartbeat names it; null before it starts. */
  workerId: z.string().nullable().default(null),
  /** The host whose own Docker engine keeps the committed image (a worker on another host); null: this host's engine. */
  imageHost: z.string().nullable().default(null),
});
export type TrialView = z.infer<typeof trialViewSchema>;

/** A file captured when the study was created (its bytes are in the data dir): a test, or runner config. */
export const testFileViewSchema = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "A sha256 is 64 lowercase hex digits."),
  bytes: count,
  /** Absent on studies created before roles existed: a test. */
  role: capturedFileRoleSchema.default("test"),
  /** A symbolic link is captured as one: its stored bytes are the link's target text. Absent: a file. */
  kind: capturedFileKindSchema.optional(),
});
export type TestFileView = z.infer<typeof testFileViewSchema>;

/** The environment version a study froze, and its image. */
export const studyEnvironmentSchema = z.object({
  versionId: z.string().nullable(),
  version: z.int().positive().nullable(),
  imageId: z.string().nullable(),
  imageDigest: z.string().nullable(),
});

export interface StudyCounts {
  total: number;
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  error: number;
  stopped: number;
  interrupted: number;
  /** Ended trials by outcome: `completed` is `succeeded` shown honestly; agent-failed + timed-out = failed (+ error). */
  outcomes: Record<TrialOutcome, number>;
}

/** The trial an admin kept as the study's result, with an optional note; choosing changes no project files. */
export interface StudyChoiceView {
  trialId: string;
  note: string | null;
  by: string;
  at: string;
}

export interface StudySummaryView {
  id: string;
  projectId: string;
  projectName: string;
  title: string;
  state: StudyState;
  /** The state as shown: `interrupted` for a `done` study whose trials all ended interrupted (study-state.ts). */
  shownState: ShownStudyState;
  refusal: string | null;
  baseline: VerdictView | null;
  counts: StudyCounts;
  createdAt: string;
  finishedAt: string | null;
  /** The chosen result, or null when none was chosen. */
  chosen: StudyChoiceView | null;
}

export interface StudyView extends StudySummaryView {
  taskPrompt: string;
  testCommand: string;
  junitPath: string | null;
  testFiles: TestFileView[];
  snapshotId: string | null;
  /** The baseline run's exit code and the tail of its output (null before the preflight ends). */
  preflight: { exitCode: number | null; output: string } | null;
  environment: z.infer<typeof studyEnvironmentSchema>;
  concurrency: number;
  agentTimeoutSec: number;
  evalTimeoutSec: number;
  /** Tokens the gateway allows each trial; null: the project's run budget at the time a trial starts. */
  tokenBudget: number | null;
  createdBy: string;
  startedAt: string | null;
  configurations: ConfigurationView[];
  trials: TrialView[];
  /** The study's budget over all its trials, in tokens or US dollars (null fields: none). */
  budget: { tokens: number | null; money: number | null };
  /** The study this one reruns from its manifests (and the one trial, when only one was rerun); null otherwise. */
  rerunOf: { studyId: string; trialId: string | null } | null;
}

export interface StudyDefaultsView {
  concurrency: number;
  concurrencyReasoning: string;
  agentTimeoutSec: number;
  evalTimeoutSec: number;
  /** The project's token budget per run, the form's default for each trial. */
  tokenBudget: number;
  configuration: AgentConfiguration;
  environment: { versionId: string; version: number } | null;
  /** Why a study cannot start yet (no ready environment), or null. */
  blocker: string | null;
}

export interface ProjectFileView {
  path: string;
  bytes: number;
}
