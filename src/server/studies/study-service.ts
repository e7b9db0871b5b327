import fsp from "node:fs/promises";
import type { JobQueue } from "../jobs/job-queue";
import type { Redis } from "ioredis";
import { AppError } from "../errors/app-error";
import { publishEvent, type EventInput } from "../events/event-stream";
import type { EnvironmentQueries } from "../environments/environments.queries";
import { preflightJobId, studyPreflightJob, trialJobId, trialStopKey } from "../jobs/study-jobs";
import type { ProjectQueries } from "../projects/projects.queries";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import type { SnapshotService } from "../snapshots/snapshot-service";
import { readTestFiles, storeTestFiles, testFilesDir } from "../trials/test-files";
import { trialLogPath } from "../trials/trial-log";
import { createKeyedLock } from "../locks/keyed-lock";
import type { InvariantEvent } from "../../shared/event-catalog";
import {
  createStudyInputSchema,
  type CreateStudyInput,
  type StudySummaryView,
  type StudyView,
} from "../../shared/study-schemas";
import type { StudyQueries } from "./studies.queries";
import { createTrialDispatcher } from "./trial-dispatcher";
import { deleteStudy } from "./study-deletion";
import type { RemovalJournal } from "../storage/removal-journal";
import { recordStudyEvent } from "./study-events";
import { studyDefaults, listProjectFiles } from "./study-defaults";
import { renderStudyReport } from "./study-report-builder";
import type { ReportFormat } from "../reports/report-filename";

export interface StudyServiceDeps {
  studies: StudyQueries;
  projects: Pick<ProjectQueries, "findById">;
  environments: Pick<EnvironmentQueries, "active">;
  snapshots: Pick<SnapshotService, "create">;
  runtime: Pick<ContainerRuntime, "inspectImage" | "listManagedContainers" | "removeContainer">;
  journal: RemovalJournal;
  queue: JobQueue;
  redis: Redis;
  dataDir: string;
  host: { cpus: number; memoryBytes: number };
  /** Ids and concurrency of the workers alive now (heartbeats). */
  liveWorkers: () => Promise<{ id: string; concurrency: number }[]>;
  log: (message: string) => void;
  clock?: () => Date;
}

const STOP_KEY_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Studies (web side): create with a preflight, dispatch trials to the queue within the study's
 * concurrency, record what workers report, stop, retry, and find trials whose worker died.
 * The web process is the only database writer; workers report through events (study-events.ts).
 */
export function createStudyService(deps: StudyServiceDeps) {
  const now = deps.clock ?? (() => new Date());
  const publish = (event: EventInput) => publishEvent(deps.redis, event);
  const dispatcher = createTrialDispatcher({ studies: deps.studies, queue: deps.queue, log: deps.log, clock: now });
  const withStudyLock = createKeyedLock();

  async function study(studyId: string): Promise<StudyView> {
    const found = await deps.studies.find(studyId);
    if (!found)
      throw new AppError({
        code: "NOT_FOUND",
        message: `No study with id ${studyId}. It may have been removed; open the study list.`,
      });
    return found;
  }

  async function announce(studyId: string, projectId: string, reason: string, trialIds: string[] = []) {
    await publish({ type: "study.changed", projectId, studyId, data: { reason, trialIds } }).catch((error: unknown) =>
      deps.log(`studies: could not publish a change: ${String(error)}`),
    );
  }

  return {
    defaults: (projectId: string) => studyDefaults({ ...deps, projectId }),
    projectFiles: (input: { projectId: string; query: string }) =>
      listProjectFiles({ projects: deps.projects, ...input }),

    /**
     * Checks everything, freezes the snapshot and the environment image, captures the test files, and
     * queues the preflight. Bad input is refused before anything is written.
     */
    async create(raw: CreateStudyInput, createdBy: string): Promise<StudyView> {
      const input = createStudyInputSchema.parse(raw);
      const project = await deps.projects.findById(input.projectId);
      if (!project)
        throw new AppError({
          code: "NOT_FOUND",
          field: "projectId",
          message: `No project with id ${input.projectId}; choose one from the list.`,
        });
      const environment = await deps.environments.active(project.id);
      if (!environment || environment.status !== "ready" || !environment.imageId) {
        throw new AppError({
          code: "PRECONDITION_FAILED",
          field: "projectId",
          message: `${project.name} has no ready environment yet. Prepare one on the project page first.`,
        });
      }
      const image = await deps.runtime.inspectImage(environment.imageId);
      if (!image)
        throw new AppError({
          code: "PRECONDITION_FAILED",
          field: "projectId",
          message: `The image of ${project.name}'s environment v${environment.version} is gone from Docker. Prepare the environment again.`,
        });
      const files = await readTestFiles({ projectRoot: project.hostPath, files: input.testFiles });
      const snapshot = await deps.snapshots.create({ projectId: project.id });
      const projectLimits = {
        cpus: project.cpus,
        memoryBytes: project.memoryBytes,
        swapBytes: project.swapBytes,
        pids: project.pids,
      };
      const concurrency = input.concurrency ?? (await studyDefaults({ ...deps, projectId: project.id })).concurrency;
      const studyId = await deps.studies.create({
        projectId: project.id,
        title: input.title,
        taskPrompt: input.taskPrompt,
        testCommand: input.testCommand,
        junitPath: input.junitPath,
        testFiles: files.map((file) => ({ path: file.path, sha256: file.sha256, bytes: file.data.length })),
        snapshotId: snapshot.id,
        environmentVersionId: environment.id,
        imageId: image.id,
        imageDigest: image.id.startsWith("sha256:") ? image.id : null,
        concurrency,
        agentTimeoutSec: input.agentTimeoutSec,
        evalTimeoutSec: input.evalTimeoutSec,
        createdBy,
        configurations: input.configurations.map((configuration) => ({
          harness: configuration.harness,
          model: configuration.harness === "codex" ? configuration.model : configuration.model || "(command)",
          reasoningEffort: configuration.reasoningEffort,
          instructions: configuration.instructions,
          overrides: configuration.overrides,
          command: configuration.harness === "command" ? configuration.command : null,
          repeats: configuration.repeats,
        })),
      });
      try {
        const testFiles = await storeTestFiles({ dataDir: deps.dataDir, studyId, files });
        await deps.queue.enqueue({
          job: studyPreflightJob,
          jobId: preflightJobId(studyId),
          data: {
            studyId,
            projectId: project.id,
            snapshotId: snapshot.id,
            image: image.id,
            testCommand: input.testCommand,
            junitPath: input.junitPath,
            testFiles,
            network: project.networkMode,
            limits: projectLimits,
            evalTimeoutMs: input.evalTimeoutSec * 1000,
          },
        });
      } catch (error) {
        // nothing half-made stays behind
        await deps.studies.deleteStudy(studyId);
        await fsp.rm(testFilesDir({ dataDir: deps.dataDir, studyId }), { recursive: true, force: true });
        throw new AppError({
          code: "INTERNAL_SERVER_ERROR",
          message: `Could not queue the study's preflight: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        });
      }
      await announce(studyId, project.id, "created");
      return study(studyId);
    },

    get: study,
    list: (input: { projectId?: string | undefined }): Promise<StudySummaryView[]> => deps.studies.list(input),

    /** Cancels queued trials, stops running ones (their workers stop the containers), and ends the study as `stopped`. */
    async stop(studyId: string, by: string): Promise<StudyView> {
      return withStudyLock(studyId, async () => {
        const found = await study(studyId);
        const reason = `Stopped by ${by}.`;
        if (found.state === "preflight") {
          await deps.queue.remove(preflightJobId(studyId));
          await deps.studies.setStudyState({ studyId, from: ["preflight"], to: "stopped", finishedAt: now() });
        } else if (found.state === "running" || found.state === "stopping") {
          await deps.studies.setStudyState({ studyId, from: ["running"], to: "stopping" });
          const open = found.trials.filter(
            (trial) =>
              trial.state === "queued" ||
              trial.state === "preparing" ||
              trial.state === "agent" ||
              trial.state === "evaluating",
          );
          for (const trial of open) await deps.redis.set(trialStopKey(trial.id), reason, "EX", STOP_KEY_TTL_SECONDS);
          const cancelled: string[] = [];
          const enqueued = new Set(
            (await deps.studies.trialsOf(studyId)).filter((row) => row.enqueuedAt).map((row) => row.id),
          );
          for (const trial of open.filter((candidate) => candidate.state === "queued")) {
            const removed = await deps.queue.remove(trialJobId({ trialId: trial.id, attempt: trial.attempt }));
            if (removed || !enqueued.has(trial.id)) cancelled.push(trial.id);
          }
          await deps.studies.endTrials({
            trialIds: cancelled,
            state: "stopped",
            reason,
            at: now(),
            onlyStates: ["queued"],
          });
          await deps.studies.finishIfComplete(studyId, now());
        } else {
          throw new AppError({
            code: "CONFLICT",
            message: `This study is ${found.state}; only a running study can be stopped.`,
          });
        }
        await announce(studyId, found.projectId, reason);
        return study(studyId);
      });
    },

    /** Deletes a study that is not running, with everything it left on disk and in Docker (study-deletion.ts). */
    async remove(studyId: string, by: string) {
      return withStudyLock(studyId, async () => {
        const found = await study(studyId);
        const result = await deleteStudy({ studies: deps.studies, journal: deps.journal }, studyId);
        deps.log(
          `studies: ${by} deleted "${found.title}" (${studyId})${result.leftovers.length > 0 ? `; left for the next start: ${result.leftovers.join("; ")}` : ""}`,
        );
        await announce(studyId, found.projectId, `Deleted by ${by}.`);
        return result;
      });
    },

    /** Runs chosen failed, errored, stopped or interrupted trials again, each as a new attempt. */
    async retry(input: { studyId: string; trialIds: string[] }, by: string): Promise<StudyView> {
      return withStudyLock(input.studyId, async () => {
        const found = await study(input.studyId);
        if (found.state === "preflight" || found.state === "refused") {
          throw new AppError({
            code: "CONFLICT",
            message:
              found.state === "refused"
                ? "The preflight refused this study; fix the test command and create a new study."
                : "Wait for the preflight to finish.",
          });
        }
        const unknown = input.trialIds.filter((id) => !found.trials.some((trial) => trial.id === id));
        if (unknown.length > 0)
          throw new AppError({
            code: "BAD_REQUEST",
            field: "trialIds",
            message: `Not trials of this study: ${unknown.join(", ")}.`,
          });
        for (const trialId of input.trialIds) await deps.redis.del(trialStopKey(trialId));
        const reset = await deps.studies.retry({ studyId: input.studyId, trialIds: input.trialIds, now: now() });
        if (reset.length === 0)
          throw new AppError({
            code: "CONFLICT",
            field: "trialIds",
            message:
              "None of these trials can be retried: only failed, errored, stopped or interrupted trials can (a retry may already be queued).",
          });
        await deps.studies.setStudyState({
          studyId: input.studyId,
          from: ["done", "stopped", "stopping"],
          to: "running",
          finishedAt: null,
        });
        await dispatcher.topUp(input.studyId);
        await announce(
          input.studyId,
          found.projectId,
          `${reset.length} trial${reset.length === 1 ? "" : "s"} retried by ${by}.`,
          reset,
        );
        return study(input.studyId);
      });
    },

    /** The last `tailBytes` of a trial's current attempt's log ("" before it starts). */
    async trialLog(input: {
      trialId: string;
      tailBytes: number;
    }): Promise<{ text: string; truncated: boolean; path: string }> {
      const location = await deps.studies.trialLocation(input.trialId);
      if (!location) throw new AppError({ code: "NOT_FOUND", message: `No trial with id ${input.trialId}.` });
      const file = trialLogPath({ dataDir: deps.dataDir, trialId: input.trialId, attempt: location.attempt });
      const handle = await fsp.open(file, "r").catch(() => null);
      if (!handle) return { text: "", truncated: false, path: file };
      try {
        const { size } = await handle.stat();
        const length = Math.min(size, input.tailBytes);
        const buffer = Buffer.alloc(length);
        await handle.read(buffer, 0, length, size - length);
        return { text: buffer.toString("utf8"), truncated: size > length, path: file };
      } finally {
        await handle.close();
      }
    },

    /** A study's report in one format (Markdown, JSON or CSV), for downloads and `invariant-web export`. */
    async report(input: { studyId: string; format: ReportFormat }) {
      return renderStudyReport({ study: await study(input.studyId), format: input.format, generatedAt: now() });
    },

    /** The full log file of a trial's current attempt, or null before it has one. */
    async trialLogFile(trialId: string): Promise<{ path: string; fileName: string } | null> {
      const location = await deps.studies.trialLocation(trialId);
      if (!location) throw new AppError({ code: "NOT_FOUND", message: `No trial with id ${trialId}.` });
      const file = trialLogPath({ dataDir: deps.dataDir, trialId, attempt: location.attempt });
      const exists = await fsp.access(file).then(
        () => true,
        () => false,
      );
      return exists ? { path: file, fileName: `trial-${trialId}-attempt-${location.attempt}.log` } : null;
    },

    async trialTests(trialId: string) {
      return deps.studies.trialTests(trialId);
    },

    /**
     * Applies a recorded worker event to studies and trials, then hands out free slots. Every update is
     * conditional, so a replayed event (firstTime false) goes the same way and changes nothing twice.
     */
    async recordEvent(event: InvariantEvent, _options: { firstTime: boolean }): Promise<void> {
      const touched = await recordStudyEvent({ studies: deps.studies, event, now: now(), log: deps.log });
      if (touched) {
        await dispatcher.topUp(touched);
        await deps.studies.finishIfComplete(touched, now());
      }
    },

    dispatcher,
  };
}

export type StudyService = ReturnType<typeof createStudyService>;
