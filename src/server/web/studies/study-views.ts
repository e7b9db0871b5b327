import { z } from "zod";
import type { Db } from "../../core/db/client";
import { capturedChangeSchema, type CapturedChange } from "../../../shared/captured-files";
import { testSteeringChangeSchema, type TestSteeringChange } from "../../../shared/test-steering";
import type {
  ConfigurationView,
  StudyCounts,
  StudySummaryView,
  TrialAttemptView,
  TrialView,
} from "../../../shared/study-schemas";
import { TRIAL_OUTCOMES, trialOutcome, type TrialOutcome } from "../../../shared/trial-outcome";
import { judgedVerdict, testsMissing } from "../../../shared/test-integrity";
import { parseManifestInputs, type TrialManifest } from "../../../shared/trial-manifest";
import { tokensOf } from "../../../shared/token-usage";
import { configurationLabel, withLabels } from "../../../shared/configuration-label";
import { verdictSchema, type VerdictView } from "../../../shared/verdict-summary";
import { shownStudyState } from "../../../shared/study-state";
import { trialNumber } from "../../../shared/domain-names";
import {
  harnessKindSchema,
  isActiveTrialState,
  isTerminalTrialState,
  reasoningEffortSchema,
  type StudyState,
  type TerminalTrialState,
  type TrialState,
} from "../../../shared/vocabulary";

/**
 * Study rows → the plain views the API returns (no database access here). Only the *.queries.ts
 * modules of this folder call these: no Prisma row leaves them.
 */
export type StudyRow = Awaited<ReturnType<Db["study"]["findUniqueOrThrow"]>>;
export type TrialRow = Awaited<ReturnType<Db["trial"]["findUniqueOrThrow"]>>;
export type ConfigurationRow = Awaited<ReturnType<Db["configuration"]["findUniqueOrThrow"]>>;
export type TrialAttemptRow = Awaited<ReturnType<Db["trialAttempt"]["findUniqueOrThrow"]>>;

export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

export function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** One configuration's view; its label is its own (`labelledConfigurations` makes a study's unique). */
export function configurationView(row: ConfigurationRow): ConfigurationView {
  const view = {
    id: row.id,
    choice: row.position,
    harness: harnessKindSchema.catch("codex").parse(row.harness),
    model: row.model,
    reasoningEffort: reasoningEffortSchema.catch("medium").parse(row.reasoningEffort),
    instructions: row.instructions,
    overrides: parseJson<string[]>(row.overrides, []),
    command: row.command,
    repeats: row.repeats,
    derivedFrom: row.derivedFrom,
    customLabel: row.label,
  };
  return { ...view, label: configurationLabel(view) };
}

/** A study's configurations, with labels made unique among them ("#2" on a collision). */
export function labelledConfigurations(rows: readonly ConfigurationRow[]): ConfigurationView[] {
  return withLabels(rows.map(configurationView));
}

/** Verdicts are stored flat: `verdictPassed` … `verdictOk` on a trial, `baselinePassed` … `baselineOk` on a study. */
type VerdictPrefix = "verdict" | "baseline";
type VerdictColumns<P extends VerdictPrefix> = {
  [K in keyof VerdictView as `${P}${Capitalize<K>}`]: VerdictView[K] | null;
};
const VERDICT_FIELDS = verdictSchema.keyof().options;
const column = (prefix: VerdictPrefix, field: string) => `${prefix}${field[0]?.toUpperCase()}${field.slice(1)}`;

/** A verdict as the columns of a row (all null for none). */
export function verdictColumns<P extends VerdictPrefix>(prefix: P, verdict: VerdictView | null): VerdictColumns<P> {
  return Object.fromEntries(
    VERDICT_FIELDS.map((field) => [column(prefix, field), verdict?.[field] ?? null]),
  ) as VerdictColumns<P>;
}

/** The verdict kept in a row's columns, or null when it has none. */
export function verdictFromColumns<P extends VerdictPrefix>(prefix: P, row: VerdictColumns<P>): VerdictView | null {
  const value = Object.fromEntries(
    VERDICT_FIELDS.map((field) => [field, (row as Record<string, unknown>)[column(prefix, field)]]),
  ) as { [K in keyof VerdictView]: VerdictView[K] | null };
  if (!value.source) return null;
  return { ...value, source: value.source, ok: value.ok ?? false };
}

/** The verdict in a row's columns judged against the study's baseline, with the integrity flag. */
function judged(row: VerdictColumns<"verdict">, baseline: VerdictView | null) {
  const verdict = verdictFromColumns("verdict", row);
  const missing = testsMissing(verdict, baseline);
  return { verdict: judgedVerdict(verdict, missing), testsMissing: missing };
}

export function trialAttemptView(row: TrialAttemptRow, baseline: VerdictView | null = null): TrialAttemptView {
  const state = row.state as TrialState;
  return {
    attempt: row.attempt,
    choice: row.configuration,
    harness: harnessKindSchema.catch("codex").parse(row.harness),
    model: row.model,
    reasoningEffort: reasoningEffortSchema.catch("medium").parse(row.reasoningEffort),
    instructions: row.instructions,
    state,
    outcome: trialOutcome({ state, recorded: row.outcome, error: row.error }),
    error: row.error,
    ...judged(row, baseline),
    exitCode: row.exitCode,
    agentSeconds: row.agentSeconds,
    evalSeconds: row.evalSeconds,
    tokens: tokensOf(row),
    commandsRun: row.commandsRun,
    workspaceId: row.workspaceId,
    committedImageId: row.committedImageId,
    capturedChanges: capturedChangesOf(row.capturedChanges),
    testSteering: testSteeringOf(row.testSteering),
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
    retriedAt: row.retriedAt.toISOString(),
    retriedBy: row.retriedBy,
  };
}

/** The stored list of test-steering files an attempt's agent changed (JSON); null when not checked or unreadable. */
function testSteeringOf(json: string | null): TestSteeringChange[] | null {
  if (json === null) return null;
  try {
    const parsed = z.array(testSteeringChangeSchema).safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The stored list of captured files an attempt's agent changed (JSON); null when not checked or unreadable. */
function capturedChangesOf(json: string | null): CapturedChange[] | null {
  if (json === null) return null;
  try {
    const parsed = z.array(capturedChangeSchema).safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The stored manifest with what the run reported; null for a trial not queued yet (or from before manifests). */
function manifestOf(row: TrialRow): TrialManifest | null {
  const inputs = parseManifestInputs(row.manifest);
  if (!inputs) return null;
  const workspaceKind = row.workspaceKind === "copy" || row.workspaceKind === "overlay" ? row.workspaceKind : null;
  return { ...inputs, harnessVersion: row.harnessVersion, reportedModel: row.reportedModel, workspaceKind };
}

/**
 * A trial row as its view; `attempts` are its earlier attempts' rows (none when not read); `baseline` is
 * its study's, which the verdict is judged against (the integrity flag "tests missing").
 */
export function trialView(
  row: TrialRow,
  choice: number,
  repeat: number,
  attempts: readonly TrialAttemptRow[] = [],
  baseline: VerdictView | null = null,
  followUpPath: readonly number[] = [],
): TrialView {
  const state = row.state as TrialState;
  return {
    id: row.id,
    configurationId: row.configurationId,
    choice,
    repeat,
    parentTrialId: row.parentTrialId,
    followUpPath: [...followUpPath],
    followUpNumber: followUpPath.at(-1) ?? null,
    number: trialNumber({ choice, repeat, followUpPath }),
    feedback: row.feedback,
    attempt: row.attempt,
    state,
    outcome: trialOutcome({ state, recorded: row.outcome, error: row.error }),
    step: row.step,
    ...judged(row, baseline),
    exitCode: row.exitCode,
    agentSeconds: row.agentSeconds,
    evalSeconds: row.evalSeconds,
    tokens: tokensOf(row),
    commandsRun: row.commandsRun,
    threadId: row.threadId,
    harnessVersion: row.harnessVersion,
    reportedModel: row.reportedModel,
    committedImageId: row.committedImageId,
    workspaceId: row.workspaceId,
    diff:
      row.diffFiles === null
        ? null
        : { files: row.diffFiles, insertions: row.diffInsertions ?? 0, deletions: row.diffDeletions ?? 0 },
    capturedChanges: capturedChangesOf(row.capturedChanges),
    testSteering: testSteeringOf(row.testSteering),
    manifest: manifestOf(row),
    error: row.error,
    queuedAt: row.queuedAt.toISOString(),
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
    attempts: [...attempts].sort((a, b) => a.attempt - b.attempt).map((attempt) => trialAttemptView(attempt, baseline)),
    workerId: row.workerId,
    imageHost: row.imageHost,
  };
}

export function emptyCounts(): StudyCounts {
  const outcomes = Object.fromEntries(TRIAL_OUTCOMES.map((outcome) => [outcome, 0])) as Record<TrialOutcome, number>;
  return { total: 0, queued: 0, running: 0, succeeded: 0, failed: 0, error: 0, stopped: 0, interrupted: 0, outcomes };
}

/** Counts `n` trials in `state` (with the outcome their worker reported, if any). */
export function countInto(counts: StudyCounts, trials: { state: string; outcome?: string | null; n: number }): void {
  const { state, n } = trials;
  counts.total += n;
  if (state === "queued") counts.queued += n;
  else if (isActiveTrialState(state)) counts.running += n;
  else if (isTerminalTrialState(state)) {
    counts[state as TerminalTrialState] += n;
    const outcome = trialOutcome({ state: state as TrialState, recorded: trials.outcome ?? null });
    if (outcome) counts.outcomes[outcome] += n;
  }
}

export function summary(row: StudyRow & { project: { name: string } }, counts: StudyCounts): StudySummaryView {
  return {
    id: row.id,
    projectId: row.projectId,
    projectName: row.project.name,
    title: row.title,
    state: row.state as StudyState,
    shownState: shownStudyState(row.state as StudyState, counts),
    refusal: row.refusal,
    baseline: verdictFromColumns("baseline", row),
    counts,
    createdAt: row.createdAt.toISOString(),
    finishedAt: iso(row.finishedAt),
    chosen:
      row.chosenTrialId === null
        ? null
        : {
            trialId: row.chosenTrialId,
            note: row.chosenNote,
            by: row.chosenBy ?? "admin",
            at: (row.chosenAt ?? row.createdAt).toISOString(),
          },
  };
}
