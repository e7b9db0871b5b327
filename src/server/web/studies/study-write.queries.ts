import type { z } from "zod";
import type { Db } from "../../core/db/client";
import type { studyPreflightFinishedEvent } from "../../../shared/event-catalog";
import type { ConfigurationView, StudyView, TestFileView } from "../../../shared/study-schemas";
import { OPEN_TRIAL_STATES, type StudyState } from "../../../shared/vocabulary";
import type { ContainerLimits } from "../../../shared/trial-manifest";
import { parseJson, verdictColumns } from "./study-views";

/** A study's rows through its life: created, preflight recorded, state changes, deleted. */

export interface NewStudy extends Pick<
  StudyView,
  | "projectId"
  | "title"
  | "taskPrompt"
  | "testCommand"
  | "junitPath"
  | "concurrency"
  | "agentTimeoutSec"
  | "evalTimeoutSec"
  | "tokenBudget"
  | "createdBy"
> {
  testFiles: TestFileView[];
  snapshotId: string;
  /** The project's git HEAD when the snapshot was taken (absent or null: not a repository, no commit, a rerun). */
  snapshotCommit?: string | null;
  /** Null only for a rerun whose environment version row was deleted (its image still exists). */
  environmentVersionId: string | null;
  imageId: string;
  imageDigest: string | null;
  configurations: Omit<ConfigurationView, "id" | "choice" | "derivedFrom" | "label">[];
  /** The study's budget over all its trials (absent: none). */
  budgetTokens?: number | null;
  budgetMoney?: number | null;
  /** A rerun: the original study, the one trial it reruns (or null), and the limits from the manifest. */
  rerun?: { of: string; trial: string | null; limits: ContainerLimits };
}

export type PreflightOutcome = Omit<z.infer<typeof studyPreflightFinishedEvent>["data"], "durationMs">;

async function createStudy(db: Db, input: NewStudy): Promise<string> {
  const { configurations, testFiles, rerun, ...fields } = input;
  const study = await db.study.create({
    data: {
      ...fields,
      ...(rerun ? { rerunOf: rerun.of, rerunOfTrial: rerun.trial, limits: JSON.stringify(rerun.limits) } : {}),
      testFiles: JSON.stringify(testFiles),
      state: "preflight",
      configurations: {
        create: configurations.map(({ customLabel, ...configuration }, index) => ({
          ...configuration,
          label: customLabel,
          position: index + 1,
          overrides: JSON.stringify(configuration.overrides),
        })),
      },
    },
  });
  return study.id;
}

/** What deleting a study must remove besides its rows: every attempt's workspace and image (earlier attempts are only in the events), and the artifacts' files. */
async function deletionPlan(
  db: Db,
  studyId: string,
): Promise<{ trialIds: string[]; workspaceIds: string[]; imageIds: string[]; artifactPaths: string[] }> {
  const trials = await db.trial.findMany({
    where: { studyId },
    select: { id: true, workspaceId: true, committedImageId: true },
  });
  // every attempt's artefacts: as reported when created, and as reported at the finish
  const finished = await db.eventLog.findMany({
    where: { studyId, type: { in: ["trial.finished", "trial.artefacts"] } },
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
}

/** Records the baseline and, if it passed, creates the trials (configurations × repeats). Only once: false if already recorded. */
async function recordPreflight(
  db: Db,
  options: { studyId: string; outcome: PreflightOutcome; now: Date },
): Promise<boolean> {
  const { studyId, outcome, now } = options;
  return db.$transaction(async (tx) => {
    const study = await tx.study.findUnique({
      where: { id: studyId },
      include: { configurations: { orderBy: { position: "asc" } } },
    });
    if (study?.state !== "preflight") return false;
    await tx.study.update({
      where: { id: studyId },
      data: {
        state: outcome.status === "passed" ? "running" : "refused",
        refusal: outcome.refusal,
        ...verdictColumns("baseline", outcome.verdict),
        preflightExitCode: outcome.exitCode,
        preflightOutput: outcome.outputTail,
        ...(outcome.status === "passed" ? { startedAt: now } : { finishedAt: now }),
      },
    });
    if (outcome.status === "passed") {
      let tick = now.getTime();
      for (const configuration of study.configurations) {
        for (let repeat = 0; repeat < configuration.repeats; repeat += 1) {
          await tx.trial.create({ data: { studyId, configurationId: configuration.id, queuedAt: new Date(tick++) } });
        }
      }
    }
    return true;
  });
}

/** running/stopping → done/stopped once every trial has ended; true if it changed. */
async function finishIfComplete(db: Db, options: { studyId: string; now: Date }): Promise<boolean> {
  const { studyId, now } = options;
  const open = await db.trial.count({ where: { studyId, state: { in: [...OPEN_TRIAL_STATES] } } });
  if (open > 0) return false;
  const study = await db.study.findUnique({ where: { id: studyId }, select: { state: true } });
  const to = study?.state === "running" ? "done" : study?.state === "stopping" ? "stopped" : null;
  if (!study || !to) return false;
  await db.study.updateMany({ where: { id: studyId, state: study.state }, data: { state: to, finishedAt: now } });
  return true;
}

export function createStudyWriteQueries(db: Db) {
  return {
    create: (input: NewStudy) => createStudy(db, input),

    /** The environment version's id when its row still exists (a rerun keeps it), else null. */
    async existingEnvironmentVersion(versionId: string | null): Promise<string | null> {
      if (versionId === null) return null;
      const row = await db.environmentVersion.findUnique({ where: { id: versionId }, select: { id: true } });
      return row?.id ?? null;
    },
    deletionPlan: (studyId: string) => deletionPlan(db, studyId),

    /** The study with its configurations, trials, results, artifacts and recorded events, in one transaction. */
    async deleteStudy(studyId: string): Promise<void> {
      await db.$transaction([
        db.eventLog.deleteMany({ where: { studyId } }),
        db.study.deleteMany({ where: { id: studyId } }),
      ]);
    },

    recordPreflight: (options: { studyId: string; outcome: PreflightOutcome; now: Date }) =>
      recordPreflight(db, options),
    finishIfComplete: (options: { studyId: string; now: Date }) => finishIfComplete(db, options),

    /** Sets or clears (trialId null) the study's chosen trial; false if the study is gone. */
    async setChosen(options: {
      studyId: string;
      trialId: string | null;
      note: string | null;
      by: string;
      at: Date;
    }): Promise<boolean> {
      const chosen = options.trialId !== null;
      const { count } = await db.study.updateMany({
        where: { id: options.studyId },
        data: {
          chosenTrialId: options.trialId,
          chosenNote: chosen ? options.note : null,
          chosenBy: chosen ? options.by : null,
          chosenAt: chosen ? options.at : null,
        },
      });
      return count > 0;
    },

    async setStudyState(options: {
      studyId: string;
      from: readonly StudyState[];
      to: StudyState;
      finishedAt?: Date | null;
      /** A Stop's sentence, kept until the stop is carried out (null clears it). */
      stopReason?: string | null;
    }): Promise<boolean> {
      const { count } = await db.study.updateMany({
        where: { id: options.studyId, state: { in: [...options.from] } },
        data: {
          state: options.to,
          ...(options.finishedAt === undefined ? {} : { finishedAt: options.finishedAt }),
          ...(options.stopReason === undefined ? {} : { stopReason: options.stopReason }),
        },
      });
      return count > 0;
    },

    /** The studies being stopped, with the Stop's sentence (see study-control.ts carryOutStop). */
    async pendingStops(): Promise<{ studyId: string; reason: string }[]> {
      const rows = await db.study.findMany({
        where: { state: "stopping", stopReason: { not: null } },
        select: { id: true, stopReason: true },
      });
      return rows.map((row) => ({ studyId: row.id, reason: row.stopReason ?? "" }));
    },
  };
}
