import type { JobQueue } from "../jobs/job-queue";
import type { EventInput } from "../events/event-stream";
import { preflightJobId, trialJobId } from "../jobs/study-jobs";
import { LABEL } from "../runtime/container-spec";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import type { StudyQueries } from "./studies.queries";
import type { TrialDispatcher } from "./trial-dispatcher";

export interface TrialSweeperDeps {
  studies: StudyQueries;
  queue: JobQueue;
  runtime: Pick<ContainerRuntime, "listManagedContainers" | "removeContainer">;
  liveWorkers: () => Promise<{ id: string }[]>;
  dispatcher: TrialDispatcher;
  publish: (event: EventInput) => Promise<unknown>;
  log: (message: string) => void;
  clock: () => Date;
}

/**
 * Makes every study tell the truth after a crash. A trial whose worker stopped beating (killed, host
 * restarted) ends `interrupted` — it is not re-run behind the user's back; Retry runs it again — and
 * any container it left is removed. A queued trial whose job failed before it started (its worker died
 * while picking it up) is interrupted too; one whose job vanished is queued again. A preflight whose
 * job failed refuses its study with the reason. Then free slots are handed out and finished studies closed.
 */
export function createTrialSweeper(deps: TrialSweeperDeps) {
  async function removeContainersOf(trialIds: Set<string>): Promise<void> {
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

  async function failedReason(jobId: string): Promise<string | null> {
    return (await deps.queue.failedReason(jobId)) || null;
  }

  async function sweep(): Promise<{ interrupted: string[]; requeued: string[]; refused: string[] }> {
    const live = new Set((await deps.liveWorkers()).map((worker) => worker.id));
    const touchedStudies = new Set<string>();
    const interrupted: string[] = [];
    const requeued: string[] = [];
    for (const trial of await deps.studies.activeTrials()) {
      const jobId = trialJobId({ trialId: trial.id, attempt: trial.attempt });
      if (trial.state === "queued") {
        const state = await deps.queue.state(jobId);
        if (state === "failed") {
          const reason = `Interrupted before it started: ${(await failedReason(jobId)) ?? "its worker stopped"}. Retry it to run it again.`;
          const ended = await deps.studies.endTrials({
            trialIds: [trial.id],
            state: "interrupted",
            reason,
            at: deps.clock(),
            onlyStates: ["queued"],
          });
          interrupted.push(...ended);
        } else if (state === "missing") {
          await deps.studies.clearEnqueued(trial.id);
          requeued.push(trial.id);
        } else continue;
        touchedStudies.add(trial.studyId);
        continue;
      }
      if (trial.workerId && live.has(trial.workerId)) {
        // the worker is alive; a job that failed outside the trial's own error handling still ends the trial
        if ((await deps.queue.state(jobId)) !== "failed") continue;
        const reason = `The worker failed this trial: ${(await failedReason(jobId)) ?? "unknown error"}.`;
        interrupted.push(
          ...(await deps.studies.endTrials({
            trialIds: [trial.id],
            state: "error",
            reason,
            at: deps.clock(),
            onlyStates: ["preparing", "agent", "evaluating"],
          })),
        );
        touchedStudies.add(trial.studyId);
        continue;
      }
      const reason = `Interrupted: the worker running it (${trial.workerId ?? "unknown"}) stopped while the trial was ${trial.state}. Its containers were removed; retry it to run it again.`;
      interrupted.push(
        ...(await deps.studies.endTrials({
          trialIds: [trial.id],
          state: "interrupted",
          reason,
          at: deps.clock(),
          onlyStates: ["preparing", "agent", "evaluating"],
        })),
      );
      touchedStudies.add(trial.studyId);
    }
    await removeContainersOf(new Set(interrupted));

    const refused: string[] = [];
    for (const studyId of await deps.studies.studiesInStates(["preflight"])) {
      const state = await deps.queue.state(preflightJobId(studyId));
      if (state !== "failed") continue;
      const reason = (await failedReason(preflightJobId(studyId))) ?? "its worker stopped";
      const changed = await deps.studies.recordPreflight(
        studyId,
        {
          status: "refused",
          refusal: `The preflight could not run: ${reason}. Create the study again.`,
          verdict: null,
          exitCode: null,
          outputTail: "",
        },
        deps.clock(),
      );
      if (changed) {
        refused.push(studyId);
        touchedStudies.add(studyId);
      }
    }

    for (const studyId of await deps.studies.studiesInStates(["running", "stopping"])) touchedStudies.add(studyId);
    for (const studyId of touchedStudies) {
      await deps.dispatcher.topUp(studyId);
      await deps.studies.finishIfComplete(studyId, deps.clock());
    }
    for (const trialId of interrupted) {
      const location = await deps.studies.trialLocation(trialId);
      if (location)
        await deps
          .publish({
            type: "study.changed",
            projectId: location.projectId,
            studyId: location.studyId,
            data: { reason: "A trial was interrupted.", trialIds: [trialId] },
          })
          .catch(() => undefined);
    }
    for (const studyId of refused) {
      const study = await deps.studies.state(studyId);
      if (study)
        await deps
          .publish({
            type: "study.changed",
            projectId: study.projectId,
            studyId,
            data: { reason: "The preflight could not run.", trialIds: [] },
          })
          .catch(() => undefined);
    }
    return { interrupted, requeued, refused };
  }

  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return;
    running = sweep()
      .catch((error: unknown) => deps.log(`sweeper: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (running = null));
  };
  return {
    sweep,
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
