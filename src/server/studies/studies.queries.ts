import type { Db } from "../db/client";
import {
  ACTIVE_TRIAL_STATES,
  RETRYABLE_TRIAL_STATES,
  TERMINAL_TRIAL_STATES,
  type StudyCounts,
  type StudyState,
  type StudySummaryView,
  type StudyView,
  type TestFileView,
  type TestResultView,
  type TrialState,
  type VerdictView,
} from "../../shared/study-schemas";
import {
  configurationView,
  countInto,
  emptyCounts,
  iso,
  parseJson,
  repeatNumbers,
  summary,
  trialView,
} from "./study-views";

export interface NewStudy {
  projectId: string;
  title: string;
  taskPrompt: string;
  testCommand: string;
  junitPath: string | null;
  testFiles: TestFileView[];
  snapshotId: string;
  environmentVersionId: string;
  imageId: string;
  imageDigest: string | null;
  concurrency: number;
  agentTimeoutSec: number;
  evalTimeoutSec: number;
  createdBy: string;
  configurations: {
    harness: "codex" | "command";
    model: string;
    reasoningEffort: string;
    instructions: string;
    overrides: string[];
    command: string | null;
    repeats: number;
  }[];
}

export interface PreflightOutcome {
  status: "passed" | "refused";
  refusal: string | null;
  verdict: VerdictView | null;
  exitCode: number | null;
  outputTail: string;
}

export interface TrialFinish {
  state: "succeeded" | "failed" | "error" | "stopped";
  error: string | null;
  verdict: VerdictView | null;
  exitCode: number | null;
  agentSeconds: number | null;
  evalSeconds: number | null;
  usage: { inputTokens: number; cachedInputTokens: number; outputTokens: number; reasoningTokens: number } | null;
  commandsRun: number;
  threadId: string | null;
  harnessVersion: string | null;
  committedImageId: string | null;
  workspaceId: string | null;
  diff: { files: number; insertions: number; deletions: number } | null;
  tests: { name: string; status: string; durationMs: number | null; message: string | null }[];
}

const TERMINAL = [...TERMINAL_TRIAL_STATES];
const NOT_TERMINAL = ["queued", ...ACTIVE_TRIAL_STATES];

/** Studies, configurations and trials in SQLite. Returns plain views; the only module here that touches Prisma. */
export function createStudyQueries(db: Db) {
  async function counts(studyIds: string[]): Promise<Map<string, StudyCounts>> {
    const grouped = await db.trial.groupBy({
      by: ["studyId", "state"],
      where: { studyId: { in: studyIds } },
      _count: { _all: true },
    });
    const byStudy = new Map<string, StudyCounts>();
    for (const id of studyIds) byStudy.set(id, emptyCounts());
    for (const group of grouped) countInto(byStudy.get(group.studyId) ?? emptyCounts(), group.state, group._count._all);
    return byStudy;
  }

  return {
    async create(input: NewStudy): Promise<string> {
      const { configurations, testFiles, ...fields } = input;
      const study = await db.study.create({
        data: {
          ...fields,
          testFiles: JSON.stringify(testFiles),
          state: "preflight",
          configurations: {
            create: configurations.map((configuration, index) => ({
              position: index + 1,
              harness: configuration.harness,
              model: configuration.model,
              reasoningEffort: configuration.reasoningEffort,
              instructions: configuration.instructions,
              overrides: JSON.stringify(configuration.overrides),
              command: configuration.command,
              repeats: configuration.repeats,
            })),
          },
        },
      });
      return study.id;
    },

    /** What deleting a study must remove besides its rows: every attempt's workspace and image (earlier attempts are only in the events), and the artifacts' files. */
    async deletionPlan(
      studyId: string,
    ): Promise<{ trialIds: string[]; workspaceIds: string[]; imageIds: string[]; artifactPaths: string[] }> {
      const trials = await db.trial.findMany({
        where: { studyId },
        select: { id: true, workspaceId: true, committedImageId: true },
      });
      const finished = await db.eventLog.findMany({
        where: { studyId, type: "trial.finished" },
        select: { payload: true },
      });
      const artifacts = await db.artifact.findMany({
        where: { OR: [{ studyId }, { trial: { studyId } }] },
        select: { path: true },
      });
      const workspaceIds = new Set(trials.flatMap((trial) => (trial.workspaceId ? [trial.workspaceId] : [])));
      const imageIds = new Set(trials.flatMap((trial) => (trial.committedImageId ? [trial.committedImageId] : [])));
      for (const { payload } of finished) {
        const data = parseJson<{ data?: { workspaceId?: unknown; committedImageId?: unknown } }>(payload, {}).data;
        if (typeof data?.workspaceId === "string") workspaceIds.add(data.workspaceId);
        if (typeof data?.committedImageId === "string") imageIds.add(data.committedImageId);
      }
      return {
        trialIds: trials.map((trial) => trial.id),
        workspaceIds: [...workspaceIds],
        imageIds: [...imageIds],
        artifactPaths: artifacts.map((artifact) => artifact.path),
      };
    },

    /** The study with its configurations, trials, results, artifacts and recorded events, in one transaction. */
    async deleteStudy(studyId: string): Promise<void> {
      await db.$transaction([
        db.eventLog.deleteMany({ where: { studyId } }),
        db.study.deleteMany({ where: { id: studyId } }),
      ]);
    },

    async find(studyId: string): Promise<StudyView | null> {
      const row = await db.study.findUnique({
        where: { id: studyId },
        include: {
          project: { select: { name: true } },
          configurations: { orderBy: { position: "asc" } },
          trials: true,
          environment: { select: { version: true } },
        },
      });
      if (!row) return null;
      const positions = new Map(row.configurations.map((configuration) => [configuration.id, configuration.position]));
      const repeats = repeatNumbers(row.trials);
      const trials = row.trials
        .map((trial) => trialView(trial, positions.get(trial.configurationId) ?? 0, repeats.get(trial.id) ?? 1))
        .sort((a, b) => a.choice - b.choice || a.repeat - b.repeat);
      const trialCounts = emptyCounts();
      for (const trial of row.trials) countInto(trialCounts, trial.state, 1);
      return {
        ...summary(row, trialCounts),
        taskPrompt: row.taskPrompt,
        testCommand: row.testCommand,
        junitPath: row.junitPath,
        testFiles: parseJson<TestFileView[]>(row.testFiles, []),
        snapshotId: row.snapshotId,
        preflight:
          row.preflightOutput === null ? null : { exitCode: row.preflightExitCode, output: row.preflightOutput },
        environment: {
          versionId: row.environmentVersionId,
          version: row.environment?.version ?? null,
          imageId: row.imageId,
          imageDigest: row.imageDigest,
        },
        concurrency: row.concurrency,
        agentTimeoutSec: row.agentTimeoutSec,
        evalTimeoutSec: row.evalTimeoutSec,
        createdBy: row.createdBy,
        startedAt: iso(row.startedAt),
        configurations: row.configurations.map(configurationView),
        trials,
      };
    },

    async list(options: { projectId?: string | undefined }): Promise<StudySummaryView[]> {
      const rows = await db.study.findMany({
        where: options.projectId ? { projectId: options.projectId } : {},
        include: { project: { select: { name: true } } },
        orderBy: { createdAt: "desc" },
      });
      const byStudy = await counts(rows.map((row) => row.id));
      return rows.map((row) => summary(row, byStudy.get(row.id) ?? emptyCounts()));
    },

    async state(studyId: string): Promise<{ state: StudyState; projectId: string; concurrency: number } | null> {
      const row = await db.study.findUnique({
        where: { id: studyId },
        select: { state: true, projectId: true, concurrency: true },
      });
      return row ? { state: row.state as StudyState, projectId: row.projectId, concurrency: row.concurrency } : null;
    },

    /** Records the baseline and, if it passed, creates the trials (configurations × repeats). Only once: false if already recorded. */
    async recordPreflight(studyId: string, outcome: PreflightOutcome, now: Date): Promise<boolean> {
      return db.$transaction(async (tx) => {
        const study = await tx.study.findUnique({
          where: { id: studyId },
          include: { configurations: { orderBy: { position: "asc" } } },
        });
        if (study?.state !== "preflight") return false;
        const verdict = outcome.verdict;
        await tx.study.update({
          where: { id: studyId },
          data: {
            state: outcome.status === "passed" ? "running" : "refused",
            refusal: outcome.refusal,
            baselinePassed: verdict?.passed ?? null,
            baselineFailed: verdict?.failed ?? null,
            baselineSkipped: verdict?.skipped ?? null,
            baselineTotal: verdict?.total ?? null,
            baselineSource: verdict?.source ?? null,
            baselineOk: verdict?.ok ?? null,
            preflightExitCode: outcome.exitCode,
            preflightOutput: outcome.outputTail,
            ...(outcome.status === "passed" ? { startedAt: now } : { finishedAt: now }),
          },
        });
        if (outcome.status === "passed") {
          let tick = now.getTime();
          for (const configuration of study.configurations) {
            for (let repeat = 0; repeat < configuration.repeats; repeat += 1) {
              await tx.trial.create({
                data: { studyId, configurationId: configuration.id, queuedAt: new Date(tick++) },
              });
            }
          }
        }
        return true;
      });
    },

    /** Trials of a running study that hold a slot (running, or handed to the queue), and the next ones waiting for a slot. */
    async dispatchState(studyId: string): Promise<{ inFlight: number; waiting: string[] }> {
      const trials = await db.trial.findMany({
        where: { studyId, state: { in: NOT_TERMINAL } },
        select: { id: true, state: true, enqueuedAt: true },
        orderBy: [{ queuedAt: "asc" }, { id: "asc" }],
      });
      const inFlight = trials.filter((trial) => trial.state !== "queued" || trial.enqueuedAt !== null).length;
      return {
        inFlight,
        waiting: trials
          .filter((trial) => trial.state === "queued" && trial.enqueuedAt === null)
          .map((trial) => trial.id),
      };
    },

    async trialForJob(trialId: string) {
      const row = await db.trial.findUnique({
        where: { id: trialId },
        include: { configuration: true, study: { include: { project: true } } },
      });
      return row;
    },

    async markEnqueued(trialId: string, now: Date): Promise<void> {
      await db.trial.updateMany({
        where: { id: trialId, state: "queued", enqueuedAt: null },
        data: { enqueuedAt: now },
      });
    },

    async clearEnqueued(trialId: string): Promise<void> {
      await db.trial.updateMany({ where: { id: trialId, state: "queued" }, data: { enqueuedAt: null } });
    },

    async trialStarted(options: {
      trialId: string;
      attempt: number;
      workerId: string | null;
      at: Date;
    }): Promise<boolean> {
      const { count } = await db.trial.updateMany({
        where: { id: options.trialId, attempt: options.attempt, state: "queued" },
        data: { state: "preparing", step: "Starting", workerId: options.workerId, startedAt: options.at },
      });
      return count > 0;
    },

    async trialProgress(options: {
      trialId: string;
      attempt: number;
      state: "preparing" | "agent" | "evaluating";
      step: string;
      usage: TrialFinish["usage"];
      commandsRun: number | null;
    }): Promise<boolean> {
      const { count } = await db.trial.updateMany({
        where: { id: options.trialId, attempt: options.attempt, state: { in: [...ACTIVE_TRIAL_STATES] } },
        data: {
          state: options.state,
          step: options.step,
          ...(options.usage
            ? {
                inputTokens: options.usage.inputTokens,
                cachedInputTokens: options.usage.cachedInputTokens,
                outputTokens: options.usage.outputTokens,
                reasoningTokens: options.usage.reasoningTokens,
              }
            : {}),
          ...(options.commandsRun === null ? {} : { commandsRun: options.commandsRun }),
        },
      });
      return count > 0;
    },

    /** Records a trial's end (only for its current attempt, and only once). */
    async trialFinished(options: {
      trialId: string;
      attempt: number;
      at: Date;
      finish: TrialFinish;
    }): Promise<boolean> {
      const { finish } = options;
      return db.$transaction(async (tx) => {
        const { count } = await tx.trial.updateMany({
          where: { id: options.trialId, attempt: options.attempt, state: { notIn: TERMINAL } },
          data: {
            state: finish.state,
            step: "",
            error: finish.error,
            verdictPassed: finish.verdict?.passed ?? null,
            verdictFailed: finish.verdict?.failed ?? null,
            verdictSkipped: finish.verdict?.skipped ?? null,
            verdictTotal: finish.verdict?.total ?? null,
            verdictSource: finish.verdict?.source ?? null,
            verdictOk: finish.verdict?.ok ?? null,
            exitCode: finish.exitCode,
            agentSeconds: finish.agentSeconds,
            evalSeconds: finish.evalSeconds,
            ...(finish.usage
              ? {
                  inputTokens: finish.usage.inputTokens,
                  cachedInputTokens: finish.usage.cachedInputTokens,
                  outputTokens: finish.usage.outputTokens,
                  reasoningTokens: finish.usage.reasoningTokens,
                }
              : {}),
            commandsRun: finish.commandsRun,
            threadId: finish.threadId,
            harnessVersion: finish.harnessVersion,
            committedImageId: finish.committedImageId,
            workspaceId: finish.workspaceId,
            diffFiles: finish.diff?.files ?? null,
            diffInsertions: finish.diff?.insertions ?? null,
            diffDeletions: finish.diff?.deletions ?? null,
            finishedAt: options.at,
          },
        });
        if (count === 0) return false;
        await tx.evaluationResult.deleteMany({ where: { trialId: options.trialId } });
        if (finish.tests.length > 0) {
          await tx.evaluationResult.createMany({
            data: finish.tests.map((test, position) => ({
              trialId: options.trialId,
              position,
              name: test.name,
              status: test.status,
              durationMs: test.durationMs,
              message: test.message,
            })),
          });
        }
        return true;
      });
    },

    /** Ends trials that will not finish by themselves (stopped while queued, or their worker died). */
    async endTrials(options: {
      trialIds: string[];
      state: "stopped" | "interrupted" | "error";
      reason: string;
      at: Date;
      onlyStates: readonly TrialState[];
    }): Promise<string[]> {
      const ended: string[] = [];
      for (const trialId of options.trialIds) {
        const { count } = await db.trial.updateMany({
          where: { id: trialId, state: { in: [...options.onlyStates] } },
          data: { state: options.state, step: "", error: options.reason, finishedAt: options.at },
        });
        if (count > 0) ended.push(trialId);
      }
      return ended;
    },

    /** running/stopping → done/stopped once every trial has ended; true if it changed. */
    async finishIfComplete(studyId: string, now: Date): Promise<boolean> {
      const open = await db.trial.count({ where: { studyId, state: { in: NOT_TERMINAL } } });
      if (open > 0) return false;
      const study = await db.study.findUnique({ where: { id: studyId }, select: { state: true } });
      if (study?.state === "running") {
        await db.study.updateMany({
          where: { id: studyId, state: "running" },
          data: { state: "done", finishedAt: now },
        });
        return true;
      }
      if (study?.state === "stopping") {
        await db.study.updateMany({
          where: { id: studyId, state: "stopping" },
          data: { state: "stopped", finishedAt: now },
        });
        return true;
      }
      return false;
    },

    async setStudyState(options: {
      studyId: string;
      from: readonly StudyState[];
      to: StudyState;
      finishedAt?: Date | null;
    }): Promise<boolean> {
      const { count } = await db.study.updateMany({
        where: { id: options.studyId, state: { in: [...options.from] } },
        data: { state: options.to, ...(options.finishedAt === undefined ? {} : { finishedAt: options.finishedAt }) },
      });
      return count > 0;
    },

    async trialsOf(
      studyId: string,
    ): Promise<{ id: string; state: string; attempt: number; enqueuedAt: Date | null; workerId: string | null }[]> {
      return db.trial.findMany({
        where: { studyId },
        select: { id: true, state: true, attempt: true, enqueuedAt: true, workerId: true },
      });
    },

    /** Puts retryable trials back in the queue as a new attempt; returns the ids that were reset. */
    async retry(options: { studyId: string; trialIds: string[]; now: Date }): Promise<string[]> {
      const reset: string[] = [];
      for (const trialId of options.trialIds) {
        const { count } = await db.trial.updateMany({
          where: { id: trialId, studyId: options.studyId, state: { in: [...RETRYABLE_TRIAL_STATES] } },
          data: {
            state: "queued",
            attempt: { increment: 1 },
            step: "",
            error: null,
            verdictPassed: null,
            verdictFailed: null,
            verdictSkipped: null,
            verdictTotal: null,
            verdictSource: null,
            verdictOk: null,
            exitCode: null,
            agentSeconds: null,
            evalSeconds: null,
            inputTokens: 0,
            cachedInputTokens: 0,
            outputTokens: 0,
            reasoningTokens: 0,
            commandsRun: 0,
            threadId: null,
            committedImageId: null,
            workspaceId: null,
            diffFiles: null,
            diffInsertions: null,
            diffDeletions: null,
            workerId: null,
            enqueuedAt: null,
            startedAt: null,
            finishedAt: null,
          },
        });
        if (count > 0) {
          await db.evaluationResult.deleteMany({ where: { trialId } });
          reset.push(trialId);
        }
      }
      return reset;
    },

    /** Trials that hold a slot, across studies: for the sweeper that finds trials whose worker died. */
    async activeTrials(): Promise<
      {
        id: string;
        studyId: string;
        state: string;
        attempt: number;
        workerId: string | null;
        startedAt: Date | null;
        enqueuedAt: Date | null;
      }[]
    > {
      return db.trial.findMany({
        where: { OR: [{ state: { in: [...ACTIVE_TRIAL_STATES] } }, { state: "queued", enqueuedAt: { not: null } }] },
        select: {
          id: true,
          studyId: true,
          state: true,
          attempt: true,
          workerId: true,
          startedAt: true,
          enqueuedAt: true,
        },
      });
    },

    async studiesInStates(states: readonly StudyState[]): Promise<string[]> {
      return (await db.study.findMany({ where: { state: { in: [...states] } }, select: { id: true } })).map(
        (row) => row.id,
      );
    },

    async trialTests(trialId: string): Promise<TestResultView[]> {
      const rows = await db.evaluationResult.findMany({
        where: { trialId },
        orderBy: { position: "asc" },
        select: { name: true, status: true, durationMs: true, message: true },
      });
      return rows.map((row) => ({
        ...row,
        status: row.status === "passed" || row.status === "skipped" ? row.status : "failed",
      }));
    },

    async trialLocation(trialId: string): Promise<{ studyId: string; attempt: number; projectId: string } | null> {
      const row = await db.trial.findUnique({
        where: { id: trialId },
        select: { studyId: true, attempt: true, study: { select: { projectId: true } } },
      });
      return row ? { studyId: row.studyId, attempt: row.attempt, projectId: row.study.projectId } : null;
    },
  };
}

export type StudyQueries = ReturnType<typeof createStudyQueries>;
