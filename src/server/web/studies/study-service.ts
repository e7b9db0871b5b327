import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import type { InvariantEvent } from "../../../shared/event-catalog";
import type { ChooseTrialInput, CreateStudyInput, RerunInput, RetryTrialsInput } from "../../../shared/study-inputs";
import { rerunStudy } from "./study-rerun";
import { addRepeats } from "./study-repeats";
import type { AddRepeatsInput } from "../../../shared/study-repeats";
import { checkBudgetPrices, enforceStudyBudget, pricesInForce } from "./study-budget";
import { modelPriceSchema, type ModelPrice } from "../../../shared/model-prices";
import type { SnapshotService } from "../snapshots/snapshot-service";
import type { StudySummaryView, StudyView } from "../../../shared/study-schemas";
import { createTrialDispatcher } from "./trial-dispatcher";
import { deleteStudy } from "./study-deletion";
import type { RemovalJournal } from "../cleanup/removal-journal";
import { recordStudyEvent } from "./study-events";
import { studyDefaults, listProjectFiles } from "./study-defaults";
import { renderStudyReport, studyTestMatrix } from "./study-report-builder";
import type { ReportFormat } from "../reports/report-filename";
import { createStudy, type StudyCreationDeps } from "./study-creation";
import { announceStudyChange, carryOutStop, requireStudy, retryStudyTrials, stopStudy } from "./study-control";
import { trialLogFile, trialLogTail } from "./trial-log-files";
import { recordLiveTrialLog } from "./live-trial-log";
import { messageOf } from "../../../shared/error-message";
import { chooseStudyTrial } from "./study-choice";
import type { TrialStopFlags } from "../../core/redis/trial-stop-flags";
import { continueWithFeedback, type FollowUpDeps } from "./study-follow-ups";
import type { ContinueWithFeedbackInput } from "../../../shared/review-comment-schemas";

/**
 * More trials in a study that ran: repeats of every configuration (study-repeats.ts), and follow-up attempts
 * of finished trials with the review's feedback as the prompt (study-follow-ups.ts).
 */
function moreTrials(control: FollowUpDeps, withStudyLock: ReturnType<typeof createKeyedLock>) {
  return {
    addRepeats: (add: AddRepeatsInput, by: string) => withStudyLock(add.studyId, () => addRepeats(control, add, by)),
    continueWithFeedback: (input: ContinueWithFeedbackInput, by: string) =>
      withStudyLock(input.studyId, () => continueWithFeedback(control, { input, by })),
  };
}

/** The study's report with its tests × trials, costs by the prices in force, and its trials' review comments. */
async function studyReport(
  deps: StudyServiceDeps,
  options: { study: StudyView; format: ReportFormat; generatedAt: Date },
) {
  const testMatrix = await studyTestMatrix(deps.studies, options.study);
  const prices = await pricesInForce(deps.studies);
  const comments = await deps.studies.trialComments(options.study.trials.map((trial) => trial.id));
  return renderStudyReport({ ...options, testMatrix, prices, comments });
}

/** What creating a study needs (study-creation.ts), plus the removal journal for deletions. */
export interface StudyServiceDeps extends Omit<StudyCreationDeps, "runtime" | "snapshots"> {
  snapshots: Pick<SnapshotService, "create" | "get">;
  runtime: Pick<ContainerRuntime, "inspectImage" | "listManagedContainers" | "removeContainer">;
  journal: RemovalJournal;
  stopFlags: TrialStopFlags;
  clock?: () => Date;
}

/**
 * Studies (web side): create with a preflight (study-creation.ts), dispatch trials to the queue within
 * the study's concurrency (trial-dispatcher.ts), record what workers report (study-events.ts), stop
 * and retry (study-control.ts). The web process is the only database writer; workers report through events.
 */
export function createStudyService(deps: StudyServiceDeps) {
  const now = deps.clock ?? (() => new Date());
  const dispatcher = createTrialDispatcher({ studies: deps.studies, queue: deps.queue, log: deps.log, clock: now });
  const control = { ...deps, dispatcher, now };
  const withStudyLock = createKeyedLock();
  const study = (studyId: string) => requireStudy(deps.studies, studyId);

  return {
    defaults: (projectId: string) => studyDefaults({ ...deps, projectId }),
    projectFiles: (input: { projectId: string; query: string }) =>
      listProjectFiles({ projects: deps.projects, ...input }),
    async create(raw: CreateStudyInput, createdBy: string) {
      await checkBudgetPrices(deps, raw);
      return createStudy(deps, { raw, createdBy });
    },
    /** The model price table in force (shipped defaults, edits over them), and editing it. */
    prices: () => pricesInForce(deps.studies),
    async setPrice(price: ModelPrice, by: string) {
      await deps.studies.setPrice(modelPriceSchema.parse(price), by);
      deps.log(`studies: ${by} set the price of ${price.model}`);
      return pricesInForce(deps.studies);
    },
    async resetPrice(model: string, by: string) {
      if (await deps.studies.resetPrice(model)) deps.log(`studies: ${by} reset the price of ${model}`);
      return pricesInForce(deps.studies);
    },
    /** A new study that reruns a study or one trial exactly from its manifests (study-rerun.ts). */
    rerun: (input: RerunInput, by: string) => rerunStudy(deps, { ...input, by }),
    get: study,
    list: (input: { projectId?: string | undefined }): Promise<StudySummaryView[]> => deps.studies.list(input),
    stop: (studyId: string, by: string) => withStudyLock(studyId, () => stopStudy(control, { studyId, by })),
    /** Carries out the Stops still pending (a Redis outage held them up); the sweeper calls it. Returns what changed. */
    async carryOutStops() {
      const changed: { studyId: string; projectId: string; trialIds: string[] }[] = [];
      for (const { studyId, reason } of await deps.studies.pendingStops()) {
        const result = await withStudyLock(studyId, () => carryOutStop(control, { studyId, reason }));
        if (result.cancelled.length > 0 || result.finished)
          changed.push({ studyId, projectId: result.projectId, trialIds: result.cancelled });
      }
      return changed;
    },

    /** Deletes a study that is not running, with everything it left on disk and in Docker (study-deletion.ts). */
    async remove(studyId: string, by: string) {
      return withStudyLock(studyId, async () => {
        const found = await study(studyId);
        const result = await deleteStudy({ studies: deps.studies, journal: deps.journal }, studyId);
        deps.log(
          `studies: ${by} deleted "${found.title}" (${studyId})${result.leftovers.length > 0 ? `; left for the next start: ${result.leftovers.join("; ")}` : ""}`,
        );
        await announceStudyChange(deps, { studyId, projectId: found.projectId, reason: `Deleted by ${by}.` });
        return result;
      });
    },
    retry: (input: RetryTrialsInput, by: string) =>
      withStudyLock(input.studyId, () => retryStudyTrials(control, { input, by })),
    ...moreTrials(control, withStudyLock),
    trialLog: (input: { trialId: string; tailBytes: number }) => trialLogTail(deps, input),
    /** Marks a finished trial as the study's chosen result, or clears it (study-choice.ts). */
    choose: (input: ChooseTrialInput, by: string) =>
      withStudyLock(input.studyId, () => chooseStudyTrial(control, { input, by })),

    /** A study's report in one format (Markdown, JSON or CSV), for downloads and `invariant-web export`. */
    report: async (input: { studyId: string; format: ReportFormat }) =>
      studyReport(deps, { study: await study(input.studyId), format: input.format, generatedAt: now() }),

    trialLogFile: (trialId: string) => trialLogFile(deps, trialId),
    trialTests: (trialId: string) => deps.studies.trialTests(trialId),
    /** Tests × trials: which test each evaluated trial passed, and which flip between repeats. */
    testMatrix: async (studyId: string) => studyTestMatrix(deps.studies, await study(studyId)),

    /**
     * Applies a recorded worker event to studies and trials, then hands out free slots. Every update is
     * conditional, so a replayed event (firstTime false) goes the same way and changes nothing twice.
     */
    async recordEvent(event: InvariantEvent, options: { firstTime: boolean }): Promise<void> {
      // a remote trial's log lines, into this data dir as they come (appended only the first time; a failure
      // to write the copy holds up nothing else)
      await recordLiveTrialLog(deps, { event, firstTime: options.firstTime }).catch((error: unknown) =>
        deps.log(`studies: could not keep the live log of trial ${event.trialId ?? "?"}: ${messageOf(error)}`),
      );
      const touched = await recordStudyEvent({
        studies: deps.studies,
        event,
        now: now(),
        log: deps.log,
        dataDir: deps.dataDir,
      });
      if (touched) {
        await enforceStudyBudget(deps, { studyId: touched, now: now() });
        await dispatcher.topUp(touched);
        await deps.studies.finishIfComplete({ studyId: touched, now: now() });
      }
    },

    dispatcher,
  };
}

export type StudyService = ReturnType<typeof createStudyService>;
