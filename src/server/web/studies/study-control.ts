import { AppError } from "../../core/errors/app-error";
import { isRedisOutage } from "../../core/redis/redis-errors";
import type { EventPublisher } from "../../core/events/event-stream";
import type { JobQueue } from "../../core/jobs/job-queue";
import { preflightJobId, trialJobId } from "../../core/jobs/study-jobs";
import type { TrialStopFlags } from "../../core/redis/trial-stop-flags";
import { retryConfigurationEditSchema, type RetryTrialsInput } from "../../../shared/study-inputs";
import type { StudyView } from "../../../shared/study-schemas";
import { OPEN_TRIAL_STATES, RETRYABLE_STUDY_STATES } from "../../../shared/vocabulary";
import type { StudyQueries } from "./studies.queries";
import type { TrialDispatcher } from "./trial-dispatcher";

/** Stopping a study and retrying its trials, and telling every viewer what changed. */

export interface StudyControlDeps {
  studies: StudyQueries;
  queue: JobQueue;
  publish: EventPublisher;
  stopFlags: TrialStopFlags;
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
  deps: Pick<StudyControlDeps, "publish" | "log">,
  change: { studyId: string; projectId: string; reason: string; trialIds?: string[] },
): Promise<void> {
  const { studyId, projectId, reason, trialIds = [] } = change;
  await deps
    .publish({ type: "study.changed", projectId, studyId, data: { reason, trialIds } })
    .catch((error: unknown) => deps.log(`studies: could not publish a change: ${String(error)}`));
}

async function endStopped(deps: StudyControlDeps, options: { trialIds: string[]; reason: string }): Promise<void> {
  if (options.trialIds.length === 0) return;
  await deps.studies.endTrials({ ...options, state: "stopped", at: deps.now(), onlyStates: ["queued"] });
}

/**
 * Carries out a Stop: cancels the queued trials (a trial never handed to the queue needs no Redis; one
 * whose job is waiting has it removed) and asks the workers to stop the running ones (a stop key each
 * polls); the study ends `stopped` once nothing runs. Repeatable: the sweeper runs it again for every
 * study still stopping, so a Stop pressed while Redis was down is carried out as soon as it is back.
 */
export async function carryOutStop(
  deps: StudyControlDeps,
  options: { studyId: string; reason: string },
): Promise<{ projectId: string; cancelled: string[]; finished: boolean }> {
  const { studyId, reason } = options;
  const study = await requireStudy(deps.studies, studyId);
  const open = study.trials.filter((trial) => OPEN_TRIAL_STATES.includes(trial.state));
  const queued = open.filter((trial) => trial.state === "queued");
  const enqueued = await deps.studies.enqueuedTrialIds(studyId);
  const cancelled = queued.filter((trial) => !enqueued.has(trial.id)).map((trial) => trial.id);
  await endStopped(deps, { trialIds: cancelled, reason });
  for (const trial of open) await deps.stopFlags.raise(trial.id, reason);
  const removed: string[] = [];
  for (const trial of queued.filter((candidate) => enqueued.has(candidate.id)))
    if (await deps.queue.remove(trialJobId({ trialId: trial.id, attempt: trial.attempt }))) removed.push(trial.id);
  await endStopped(deps, { trialIds: removed, reason });
  const finished = await deps.studies.finishIfComplete({ studyId, now: deps.now() });
  return { projectId: study.projectId, cancelled: [...cancelled, ...removed], finished };
}

/**
 * Records the Stop in the database first (the study is `stopping`, with its sentence), then carries it
 * out. When Redis is down the rest waits for the sweeper instead of failing: the Stop completes, without
 * a second click, once the queue is back. Returns whether it is waiting for Redis.
 */
async function stopTrials(deps: StudyControlDeps, options: { study: StudyView; reason: string }): Promise<boolean> {
  const { study, reason } = options;
  await deps.studies.setStudyState({
    studyId: study.id,
    from: ["running", "stopping"],
    to: "stopping",
    stopReason: reason,
  });
  try {
    await carryOutStop(deps, { studyId: study.id, reason });
    return false;
  } catch (error) {
    if (!isRedisOutage(error)) throw error;
    deps.log(`studies: Redis is down; study ${study.id} stops when it is back`);
    return true;
  }
}

/** Cancels queued trials, stops running ones (their workers stop the containers), and ends the study as `stopped`. */
export async function stopStudy(deps: StudyControlDeps, options: { studyId: string; by: string }): Promise<StudyView> {
  const { studyId } = options;
  const found = await requireStudy(deps.studies, studyId);
  const reason = `Stopped by ${options.by}.`;
  let waiting = false;
  if (found.state === "preflight") {
    await deps.queue.remove(preflightJobId(studyId));
    await deps.studies.setStudyState({ studyId, from: ["preflight"], to: "stopped", finishedAt: deps.now() });
  } else if (found.state === "running" || found.state === "stopping") {
    waiting = await stopTrials(deps, { study: found, reason });
  } else {
    throw new AppError({
      code: "CONFLICT",
      message: `This study is ${found.state}; only a running study can be stopped.`,
    });
  }
  // with Redis down nobody can hear of it now; the sweeper's study.changed follows once it is carried out
  if (!waiting) await announceStudyChange(deps, { studyId, projectId: found.projectId, reason });
  return requireStudy(deps.studies, studyId);
}

function checkRetryable(study: StudyView, trialIds: string[]): void {
  if (!RETRYABLE_STUDY_STATES.includes(study.state)) {
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
  if (source && source.harness !== "command" && (edit.model ?? "").trim() === "")
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
  for (const trialId of trialIds) await deps.stopFlags.clear(trialId);
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
  await deps.studies.setStudyState({
    studyId,
    from: ["done", "stopped", "stopping"],
    to: "running",
    finishedAt: null,
    stopReason: null,
  });
  await deps.dispatcher.topUp(studyId);
  const edited = createdConfiguration === null ? "" : ` as configuration ${createdConfiguration}`;
  const reason = `${reset.length} trial${reset.length === 1 ? "" : "s"} retried${edited} by ${options.by}.`;
  await announceStudyChange(deps, { studyId, projectId: found.projectId, reason, trialIds: reset });
  return requireStudy(deps.studies, studyId);
}
