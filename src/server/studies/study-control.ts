import type { Redis } from "ioredis";
import { AppError } from "../errors/app-error";
import { publishEvent } from "../events/event-stream";
import type { JobQueue } from "../jobs/job-queue";
import { preflightJobId, trialJobId, trialStopKey } from "../jobs/study-jobs";
import { retryConfigurationEditSchema, type RetryTrialsInput } from "../../shared/study-inputs";
import type { StudyView } from "../../shared/study-schemas";
import { OPEN_TRIAL_STATES } from "../../shared/vocabulary";
import type { StudyQueries } from "./studies.queries";
import type { TrialDispatcher } from "./trial-dispatcher";

/** Stopping a study and retrying its trials, and telling every viewer what changed. */

const STOP_KEY_TTL_SECONDS = 7 * 24 * 3600;

export interface StudyControlDeps {
  studies: StudyQueries;
  queue: JobQueue;
  redis: Redis;
  dispatcher: TrialDispatcher;
  log: (message: string) => void;
  now: () => Date;
}

export async function requireStudy(studies: Pick<StudyQueries, "find">, studyId: string): Promise<StudyView> {
  const found = await studies.find(studyId);
  if (!found)
    throw new AppError({
      code: "NOT_FOUND",
      message: `No study with id ${studyId}. It may have been removed; open the study list.`,
    });
  return found;
}

/** Publishes `study.changed` (the web process's own changes), so every viewer hears of them; a failure is only logged. */
export async function announceStudyChange(
  deps: Pick<StudyControlDeps, "redis" | "log">,
  change: { studyId: string; projectId: string; reason: string; trialIds?: string[] },
): Promise<void> {
  const { studyId, projectId, reason, trialIds = [] } = change;
  await publishEvent(deps.redis, { type: "study.changed", projectId, studyId, data: { reason, trialIds } }).catch(
    (error: unknown) => deps.log(`studies: could not publish a change: ${String(error)}`),
  );
}

/** Asks the workers to stop the open trials, cancels the queued ones, and ends the study when nothing runs. */
async function stopTrials(deps: StudyControlDeps, options: { study: StudyView; reason: string }): Promise<void> {
  const { study, reason } = options;
  await deps.studies.setStudyState({ studyId: study.id, from: ["running"], to: "stopping" });
  const open = study.trials.filter((trial) => OPEN_TRIAL_STATES.includes(trial.state));
  for (const trial of open) await deps.redis.set(trialStopKey(trial.id), reason, "EX", STOP_KEY_TTL_SECONDS);
  const cancelled: string[] = [];
  const enqueued = await deps.studies.enqueuedTrialIds(study.id);
  for (const trial of open.filter((candidate) => candidate.state === "queued")) {
    const removed = await deps.queue.remove(trialJobId({ trialId: trial.id, attempt: trial.attempt }));
    if (removed || !enqueued.has(trial.id)) cancelled.push(trial.id);
  }
  await deps.studies.endTrials({
    trialIds: cancelled,
    state: "stopped",
    reason,
    at: deps.now(),
    onlyStates: ["queued"],
  });
  await deps.studies.finishIfComplete({ studyId: study.id, now: deps.now() });
}

/** Cancels queued trials, stops running ones (their workers stop the containers), and ends the study as `stopped`. */
export async function stopStudy(deps: StudyControlDeps, options: { studyId: string; by: string }): Promise<StudyView> {
  const { studyId } = options;
  const found = await requireStudy(deps.studies, studyId);
  const reason = `Stopped by ${options.by}.`;
  if (found.state === "preflight") {
    await deps.queue.remove(preflightJobId(studyId));
    await deps.studies.setStudyState({ studyId, from: ["preflight"], to: "stopped", finishedAt: deps.now() });
  } else if (found.state === "running" || found.state === "stopping") {
    await stopTrials(deps, { study: found, reason });
  } else {
    throw new AppError({
      code: "CONFLICT",
      message: `This study is ${found.state}; only a running study can be stopped.`,
    });
  }
  await announceStudyChange(deps, { studyId, projectId: found.projectId, reason });
  return requireStudy(deps.studies, studyId);
}

function checkRetryable(study: StudyView, trialIds: string[]): void {
  if (study.state === "preflight" || study.state === "refused") {
    throw new AppError({
      code: "CONFLICT",
      message:
        study.state === "refused"
          ? "The preflight refused this study; fix the test command and create a new study."
          : "Wait for the preflight to finish.",
    });
  }
  const unknown = trialIds.filter((id) => !study.trials.some((trial) => trial.id === id));
  if (unknown.length > 0)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "trialIds",
      message: `Not trials of this study: ${unknown.join(", ")}.`,
    });
}

/** With edits, the trials must share one configuration (the edit makes one new configuration of them). */
function checkEdit(study: StudyView, input: RetryTrialsInput): void {
  const edit = input.configuration;
  if (!edit) return;
  const choices = new Set(study.trials.filter((trial) => input.trialIds.includes(trial.id)).map((t) => t.choice));
  if (choices.size > 1)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "configuration",
      message: "To retry with a changed configuration, choose trials of one configuration.",
    });
  const [choice] = [...choices];
  const source = study.configurations.find((configuration) => configuration.choice === choice);
  if (source?.harness === "codex" && (edit.model ?? "").trim() === "")
    throw new AppError({ code: "BAD_REQUEST", field: "configuration.model", message: "Enter a model." });
}

/**
 * Runs chosen failed, errored, stopped or interrupted trials again, each as a new attempt; the finished
 * attempts stay in the trials' history. With `configuration`, the trials run with that model, effort and
 * instructions, as a new configuration of the study (trial-retry.queries.ts).
 */
export async function retryStudyTrials(
  deps: StudyControlDeps,
  options: { input: RetryTrialsInput; by: string },
): Promise<StudyView> {
  const { studyId, trialIds } = options.input;
  const found = await requireStudy(deps.studies, studyId);
  checkRetryable(found, trialIds);
  checkEdit(found, options.input);
  for (const trialId of trialIds) await deps.redis.del(trialStopKey(trialId));
  const { reset, createdConfiguration } = await deps.studies.retry({
    studyId,
    trialIds,
    ...(options.input.configuration ? { edit: retryConfigurationEditSchema.parse(options.input.configuration) } : {}),
    by: options.by,
    now: deps.now(),
  });
  if (reset.length === 0)
    throw new AppError({
      code: "CONFLICT",
      field: "trialIds",
      message:
        "None of these trials can be retried: only failed, errored, stopped or interrupted trials can (a retry may already be queued).",
    });
  await deps.studies.setStudyState({ studyId, from: ["done", "stopped", "stopping"], to: "running", finishedAt: null });
  await deps.dispatcher.topUp(studyId);
  const edited = createdConfiguration === null ? "" : ` as configuration ${createdConfiguration}`;
  const reason = `${reset.length} trial${reset.length === 1 ? "" : "s"} retried${edited} by ${options.by}.`;
  await announceStudyChange(deps, { studyId, projectId: found.projectId, reason, trialIds: reset });
  return requireStudy(deps.studies, studyId);
}
