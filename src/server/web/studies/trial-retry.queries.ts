import type { Db } from "../../core/db/client";
import { RETRYABLE_TRIAL_STATES } from "../../../shared/vocabulary";
import type { RetryConfigurationEdit } from "../../../shared/study-inputs";
import { verdictColumns, type TrialRow } from "./study-views";

/**
 * Retrying trials: each retried trial keeps its finished attempt as a `TrialAttempt` row (what it ran
 * with and what it measured), then goes back to `queued` as the next attempt. A retry that edits the
 * configuration moves the trials into a new configuration (the next number, `derivedFrom` the old one),
 * so the other trials of the old configuration, its aggregates and its reports stay as they were.
 */

/** What a retry clears: everything the last attempt measured. */
const CLEARED_ATTEMPT = {
  step: "",
  error: null,
  outcome: null,
  ...verdictColumns("verdict", null),
  exitCode: null,
  agentSeconds: null,
  evalSeconds: null,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  commandsRun: 0,
  threadId: null,
  reportedModel: null,
  committedImageId: null,
  imageWorker: null,
  imageHost: null,
  workspaceId: null,
  workspaceKind: null,
  diffFiles: null,
  diffInsertions: null,
  diffDeletions: null,
  capturedChanges: null,
  testSteering: null,
  workerId: null,
  enqueuedAt: null,
  startedAt: null,
  finishedAt: null,
};

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
type ConfigurationRow = NonNullable<Awaited<ReturnType<Db["configuration"]["findUnique"]>>>;

/** The finished attempt as a history row. */
function attemptRecord(options: { trial: TrialRow; configuration: ConfigurationRow; by: string; at: Date }) {
  const { trial, configuration } = options;
  return {
    trialId: trial.id,
    attempt: trial.attempt,
    configuration: configuration.position,
    harness: configuration.harness,
    model: configuration.model,
    reasoningEffort: configuration.reasoningEffort,
    instructions: configuration.instructions,
    state: trial.state,
    outcome: trial.outcome,
    error: trial.error,
    verdictPassed: trial.verdictPassed,
    verdictFailed: trial.verdictFailed,
    verdictSkipped: trial.verdictSkipped,
    verdictTotal: trial.verdictTotal,
    verdictSource: trial.verdictSource,
    verdictOk: trial.verdictOk,
    exitCode: trial.exitCode,
    agentSeconds: trial.agentSeconds,
    evalSeconds: trial.evalSeconds,
    inputTokens: trial.inputTokens,
    cachedInputTokens: trial.cachedInputTokens,
    outputTokens: trial.outputTokens,
    reasoningTokens: trial.reasoningTokens,
    commandsRun: trial.commandsRun,
    workspaceId: trial.workspaceId,
    committedImageId: trial.committedImageId,
    capturedChanges: trial.capturedChanges,
    testSteering: trial.testSteering,
    startedAt: trial.startedAt,
    finishedAt: trial.finishedAt,
    retriedAt: options.at,
    retriedBy: options.by,
  };
}

/** The edited configuration, as the next configuration of the study (`repeats` = the trials moved into it). */
async function createEditedConfiguration(
  tx: Tx,
  options: { source: ConfigurationRow; edit: RetryConfigurationEdit; repeats: number },
): Promise<{ id: string; position: number }> {
  const { source, edit } = options;
  const last = await tx.configuration.findFirst({ where: { studyId: source.studyId }, orderBy: { position: "desc" } });
  const created = await tx.configuration.create({
    data: {
      studyId: source.studyId,
      position: (last?.position ?? 0) + 1,
      harness: source.harness,
      model: edit.model,
      reasoningEffort: edit.reasoningEffort,
      instructions: edit.instructions,
      overrides: source.overrides,
      command: source.command,
      repeats: options.repeats,
      derivedFrom: source.position,
    },
  });
  return { id: created.id, position: created.position };
}

function changes(configuration: ConfigurationRow, edit: RetryConfigurationEdit | undefined): boolean {
  if (!edit) return false;
  return (
    edit.model !== configuration.model ||
    edit.reasoningEffort !== configuration.reasoningEffort ||
    edit.instructions !== configuration.instructions
  );
}

export interface RetryResult {
  /** The trials put back in the queue. */
  reset: string[];
  /** The number of the configuration the edited retry created, or null. */
  createdConfiguration: number | null;
}

/**
 * Puts retryable trials back in the queue as their next attempt, keeping the finished attempt in the
 * history. With `edit` (the caller checks the trials share one configuration) that changes their
 * configuration, they move to a new one. One transaction: all of it or none.
 */
async function retryTrials(
  db: Db,
  options: { studyId: string; trialIds: string[]; edit?: RetryConfigurationEdit; by: string; now: Date },
): Promise<RetryResult> {
  return db.$transaction(async (tx) => {
    const trials = await tx.trial.findMany({
      where: { id: { in: options.trialIds }, studyId: options.studyId, state: { in: [...RETRYABLE_TRIAL_STATES] } },
      include: { configuration: true },
    });
    const source = trials[0]?.configuration;
    const oneSource = trials.every((trial) => trial.configurationId === source?.id);
    let movedTo: { id: string; position: number } | null = null;
    if (source && oneSource && options.edit && changes(source, options.edit)) {
      const created = await createEditedConfiguration(tx, { source, edit: options.edit, repeats: trials.length });
      movedTo = created;
    }
    const reset: string[] = [];
    for (const { configuration, ...trial } of trials) {
      const { count } = await tx.trial.updateMany({
        where: { id: trial.id, state: { in: [...RETRYABLE_TRIAL_STATES] } },
        data: {
          ...CLEARED_ATTEMPT,
          state: "queued",
          attempt: { increment: 1 },
          ...(movedTo ? { configurationId: movedTo.id } : {}),
        },
      });
      if (count === 0) continue;
      await tx.trialAttempt.create({ data: attemptRecord({ trial, configuration, by: options.by, at: options.now }) });
      await tx.evaluationResult.deleteMany({ where: { trialId: trial.id } });
      reset.push(trial.id);
    }
    return { reset, createdConfiguration: movedTo?.position ?? null };
  });
}

export function createTrialRetryQueries(db: Db) {
  return {
    retry: (options: { studyId: string; trialIds: string[]; edit?: RetryConfigurationEdit; by: string; now: Date }) =>
      retryTrials(db, options),
  };
}
