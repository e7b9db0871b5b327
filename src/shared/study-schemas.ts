import { z } from "zod";
import type { AgentConfiguration } from "./project-schemas";
import { tokensSchema } from "./token-usage";
import { trialResultSchema } from "./trial-result";
import type { VerdictView } from "./verdict-summary";
import { trialStateSchema, type StudyState } from "./vocabulary";
import { count, isoDate } from "./zod-fields";

/**
 * Views of studies (experiments) and their trials, shared by server and browser (inputs: study-inputs.ts).
 * A study runs every configuration `repeats` times on one frozen snapshot and environment image, and
 * judges each trial with the same captured test files and test command.
 */

export interface ConfigurationView extends AgentConfiguration {
  id: string;
  choice: number;
  overrides: string[];
  command: string | null;
  repeats: number;
}

/** A trial's current attempt: where it is and what it measured (the report picks its fields from here). */
export const trialViewSchema = trialResultSchema.extend({
  id: z.string().min(1),
  configurationId: z.string(),
  choice: z.int().positive(),
  repeat: z.int().positive(),
  attempt: z.int().positive(),
  state: trialStateSchema,
  step: z.string(),
  tokens: tokensSchema,
  queuedAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
});
export type TrialView = z.infer<typeof trialViewSchema>;

/** A test file captured when the study was created (its bytes are in the data dir). */
export const testFileViewSchema = z.object({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "A sha256 is 64 lowercase hex digits."),
  bytes: count,
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
  createdBy: string;
  startedAt: string | null;
  configurations: ConfigurationView[];
  trials: TrialView[];
}

export interface StudyDefaultsView {
  concurrency: number;
  concurrencyReasoning: string;
  agentTimeoutSec: number;
  evalTimeoutSec: number;
  configuration: AgentConfiguration;
  environment: { versionId: string; version: number } | null;
  /** Why a study cannot start yet (no ready environment), or null. */
  blocker: string | null;
}

export interface ProjectFileView {
  path: string;
  bytes: number;
}
