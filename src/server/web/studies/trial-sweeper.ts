import type { JobQueue } from "../../core/jobs/job-queue";
import type { EventPublisher } from "../../core/events/event-stream";
import { preflightJobId, trialJobId } from "../../core/jobs/study-jobs";
import { LABEL } from "../../core/runtime/container-spec";
import { ACTIVE_TRIAL_STATES } from "../../../shared/vocabulary";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { StudyQueries } from "./studies.queries";
import type { TrialDispatcher } from "./trial-dispatcher";
import type { SlotHolder } from "./trial-dispatch.queries";
import { readFinishReport } from "../../core/trial-records/finish-outbox";
import { isRedisOutage } from "../../core/redis/redis-errors";
import { DEFAULT_HEARTBEAT } from "../../core/redis/worker-registry";
import { INTERRUPTED, whileStep } from "../../../shared/trial-steps";
import { messageOf } from "../../../shared/error-message";

export interface TrialSweeperDeps {
  studies: StudyQueries;
  queue: JobQueue;
  runtime: Pick<ContainerRuntime, "listManagedContainers" | "removeContainer">;
  liveWorkers: () => Promise<{ id: string }[]>;
  dispatcher: TrialDispatcher;
  publish: EventPublisher;
  log: (message: string) => void;
  clock: () => Date;
  /** Where workers on this host keep their finish reports (see finish-outbox.ts). */
  dataDir: string;
  /** Carries out the Stops a Redis outage held up (study-control.ts carryOutStop); returns the studies it changed. */
  carryOutStops: () => Promise<{ studyId: string; projectId: string; trialIds: string[] }[]>;
}

/** A worker publishes its finish report right after writing it; one not recorded after this long was lost. */
const REPORT_DELIVERY_MS = 5_000;

type StoppedStudy = Awaited<ReturnType<TrialSweeperDeps["carryOutStops"]>>[number];
type SweepResult = { interrupted: string[]; requeued: string[]; refused: string[]; stopped: StoppedStudy[] };

async function removeContainersOf(deps: TrialSweeperDeps, trialIds: Set<string>): Promise<void> {
  if (trialIds.size === 0) return;
  const containers = await deps.runtime.listManagedContainers();
  for (const container of containers) {
    const trial = container.labels[LABEL.trial];
    if (trial && trialIds.has(trial))
      await deps.runtime
        .removeContainer(container.id)
        .catch((error: unknown) =>
          deps.log(`sweeper: could not remove ${container.id.slice(0, 12)}: ${String(error)}`),
        );
  }
}

async function failedReason(deps: TrialSweeperDeps, jobId: string): Promise<string | null> {
  return (await deps.queue.failedReason(jobId)) || null;
}

/** A queued trial handed to the queue: interrupted if its job failed before it started, queued again if the job vanished. */
async function sweepQueued(
  deps: TrialSweeperDeps,
  trial: SlotHolder,
): Promise<{ interrupted: string[]; requeued: boolean } | null> {
  const jobId = trialJobId({ trialId: trial.id, attempt: trial.attempt });
  const state = await deps.queue.state(jobId);
  if (state === "failed") {
    const reason = `Interrupted before it started: ${(await failedReason(deps, jobId)) ?? "its worker stopped"}. Retry it to run it again.`;
    const ended = await deps.studies.endTrials({
      trialIds: [trial.id],
      state: "interrupted",
      reason,
      at: deps.clock(),
      onlyStates: ["queued"],
    });
    return { interrupted: ended, requeued: false };
  }
  if (state !== "missing") return null;
  await deps.studies.clearEnqueued(trial.id);
  return { interrupted: [], requeued: true };
}

/**
 * A running trial: ended `error` if its live worker's job failed, `interrupted` if its worker is gone; null
 * if it is fine. `patient`: Redis was just down, and a heartbeat that expired meanwhile proves nothing yet.
 */
async function sweepRunning(
  deps: TrialSweeperDeps,
  trial: SlotHolder,
  workers: { live: Set<string>; patient: boolean },
): Promise<string[] | null> {
  const { live } = workers;
  // finished work is never discarded: an attempt whose finish report is on disk but not recorded (the
  // event was lost with a Redis outage or restart) is completed from that report, whatever its worker's fate
  const report = readFinishReport({ dataDir: deps.dataDir, trialId: trial.id, attempt: trial.attempt });
  if (report) {
    // a fresh report's own trial.finished is most likely on its way: publishing it too would log the finish twice
    if (deps.clock().getTime() - report.writtenAt.getTime() < REPORT_DELIVERY_MS) return null;
    deps.log(`sweeper: trial ${trial.id} finished but its finish was not recorded; recording it from its report`);
    await deps.publish(report.event);
    return null;
  }
  if (workers.patient && !(trial.workerId && live.has(trial.workerId))) return null;
  let state: "error" | "interrupted" = "interrupted";
  let reason = `Interrupted: the worker running it (${trial.workerId ?? "unknown"}) stopped ${whileStep(trial.state)}. Its containers were removed; retry it to run it again.`;
  if (trial.workerId && live.has(trial.workerId)) {
    // the worker is alive; a job that failed outside the trial's own error handling still ends the trial
    const jobId = trialJobId({ trialId: trial.id, attempt: trial.attempt });
    const jobState = await deps.queue.state(jobId);
    if (jobState === "completed") {
      // done, yet no finish recorded and no report to record it from: say so instead of leaving it active forever
      state = "error";
      reason =
        "Its worker finished this trial, but the result was lost before it was recorded. Retry it to run it again.";
      return deps.studies.endTrials({
        trialIds: [trial.id],
        state,
        reason,
        at: deps.clock(),
        onlyStates: ACTIVE_TRIAL_STATES,
      });
    }
    if (jobState !== "failed") return null;
    const failure = await failedReason(deps, jobId);
    // a stopping worker gave up on it (its containers removed): interrupted, with the worker's own sentence
    if (failure?.startsWith(INTERRUPTED)) reason = failure;
    else {
      state = "error";
      reason = `The worker failed this trial: ${failure ?? "unknown error"}.`;
    }
  }
  return deps.studies.endTrials({
    trialIds: [trial.id],
    state,
    reason,
    at: deps.clock(),
    onlyStates: ACTIVE_TRIAL_STATES,
  });
}

/** Ends the trials whose job or worker is gone; returns what changed and the studies touched. */
async function sweepTrials(deps: TrialSweeperDeps, touchedStudies: Set<string>, patient: boolean) {
  const live = new Set((await deps.liveWorkers()).map((worker) => worker.id));
  const interrupted: string[] = [];
  const requeued: string[] = [];
  for (const trial of await deps.studies.slotHolders()) {
    if (trial.state === "queued") {
      const outcome = await sweepQueued(deps, trial);
      if (!outcome) continue;
      interrupted.push(...outcome.interrupted);
      if (outcome.requeued) requeued.push(trial.id);
    } else {
      const ended = await sweepRunning(deps, trial, { live, patient });
      if (!ended) continue;
      interrupted.push(...ended);
    }
    touchedStudies.add(trial.studyId);
  }
  await removeContainersOf(deps, new Set(interrupted));
  return { interrupted, requeued };
}

/** Refuses the studies whose preflight job failed (its worker died), with the reason. */
async function refuseFailedPreflights(deps: TrialSweeperDeps, touchedStudies: Set<string>): Promise<string[]> {
  const refused: string[] = [];
  for (const studyId of await deps.studies.studiesInStates(["preflight"])) {
    if ((await deps.queue.state(preflightJobId(studyId))) !== "failed") continue;
    const reason = (await failedReason(deps, preflightJobId(studyId))) ?? "its worker stopped";
    const changed = await deps.studies.recordPreflight({
      studyId,
      outcome: {
        status: "refused",
        refusal: `The preflight could not run: ${reason}. Create the study again.`,
        verdict: null,
        exitCode: null,
        outputTail: "",
      },
      now: deps.clock(),
    });
    if (changed) {
      refused.push(studyId);
      touchedStudies.add(studyId);
    }
  }
  return refused;
}

async function announce(deps: TrialSweeperDeps, result: SweepResult): Promise<void> {
  const changes: { projectId: string; studyId: string; reason: string; trialIds: string[] }[] = [];
  for (const trialId of result.interrupted) {
    const location = await deps.studies.trialLocation(trialId);
    if (location) changes.push({ ...location, reason: "A trial was interrupted.", trialIds: [trialId] });
  }
  for (const studyId of result.refused) {
    const study = await deps.studies.state(studyId);
    if (study)
      changes.push({ projectId: study.projectId, studyId, reason: "The preflight could not run.", trialIds: [] });
  }
  for (const { projectId, studyId, trialIds } of result.stopped)
    changes.push({ projectId, studyId, reason: "The Stop was carried out.", trialIds });
  for (const { projectId, studyId, reason, trialIds } of changes)
    await deps
      .publish({ type: "study.changed", projectId, studyId, data: { reason, trialIds } })
      .catch(() => undefined);
}

async function sweep(deps: TrialSweeperDeps, patient = false): Promise<SweepResult> {
  const touchedStudies = new Set<string>();
  const { interrupted, requeued } = await sweepTrials(deps, touchedStudies, patient);
  const refused = await refuseFailedPreflights(deps, touchedStudies);
  const stopped = await deps.carryOutStops();
  for (const studyId of await deps.studies.studiesInStates(["running", "stopping"])) touchedStudies.add(studyId);
  for (const studyId of touchedStudies) {
    await deps.dispatcher.topUp(studyId);
    await deps.studies.finishIfComplete({ studyId, now: deps.clock() });
  }
  const result = { interrupted, requeued, refused, stopped };
  await announce(deps, result);
  return result;
}

/**
 * Makes every study tell the truth after a crash. A trial whose worker stopped beating (killed, host
 * restarted) ends `interrupted` — it is not re-run behind the user's back; Retry runs it again — and
 * any container it left is removed. A queued trial whose job failed before it started (its worker died
 * while picking it up) is interrupted too; one whose job vanished is queued again. A preflight whose
 * job failed refuses its study with the reason. A Stop that Redis being down held up is carried out.
 * Then free slots are handed out and finished studies closed. After a Redis outage, workers get one
 * heartbeat lifetime to beat again before their trials count as orphaned: keys that expired while Redis
 * was down say nothing about whether the worker is alive.
 */
export function createTrialSweeper(deps: TrialSweeperDeps & { heartbeatTtlMs?: number }) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let outage = false;
  let patientUntil = 0;
  const tick = () => {
    if (running) return;
    const now = deps.clock().getTime();
    if (outage) patientUntil = now + (deps.heartbeatTtlMs ?? DEFAULT_HEARTBEAT.ttlMs);
    outage = false;
    running = sweep(deps, now < patientUntil)
      .catch((error: unknown) => {
        outage ||= isRedisOutage(error);
        deps.log(`sweeper: ${messageOf(error)}`);
      })
      .finally(() => (running = null));
  };
  return {
    sweep: () => sweep(deps),
    /** Sweeps now rather than at the next interval (a worker went offline); nothing before `start`. */
    sweepSoon() {
      if (timer) tick();
    },
    start(everyMs: number) {
      tick();
      timer = setInterval(tick, everyMs);
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
