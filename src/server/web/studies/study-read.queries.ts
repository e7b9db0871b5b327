import type { Db } from "../../core/db/client";
import { trialNumbering } from "./trial-numbering";
import type { StudyCounts, StudySummaryView, StudyView, TestFileView } from "../../../shared/study-schemas";
import { testStatusSchema, type TestResultView } from "../../../shared/verdict-summary";
import type { StudyState } from "../../../shared/vocabulary";
import {
  labelledConfigurations,
  countInto,
  emptyCounts,
  iso,
  parseJson,
  summary,
  trialView,
  verdictFromColumns,
} from "./study-views";

import { compareTrialPlaces } from "../../../shared/domain-names";

/** Reading studies and trials for the API: plain views, never rows. */

async function countsOf(db: Db, studyIds: string[]): Promise<Map<string, StudyCounts>> {
  const grouped = await db.trial.groupBy({
    by: ["studyId", "state", "outcome"],
    where: { studyId: { in: studyIds } },
    _count: { _all: true },
  });
  const byStudy = new Map<string, StudyCounts>();
  for (const id of studyIds) byStudy.set(id, emptyCounts());
  for (const group of grouped)
    countInto(byStudy.get(group.studyId) ?? emptyCounts(), {
      state: group.state,
      outcome: group.outcome,
      n: group._count._all,
    });
  return byStudy;
}

export async function findStudy(db: Db, studyId: string): Promise<StudyView | null> {
  const row = await db.study.findUnique({
    where: { id: studyId },
    include: {
      project: { select: { name: true } },
      configurations: { orderBy: { position: "asc" } },
      trials: { include: { attempts: true } },
      environment: { select: { version: true } },
    },
  });
  if (!row) return null;
  const positions = new Map(row.configurations.map((configuration) => [configuration.id, configuration.position]));
  const numbers = trialNumbering(row.trials);
  const baseline = verdictFromColumns("baseline", row);
  const trials = row.trials
    .map((trial) => {
      const place = numbers.get(trial.id);
      const choice = positions.get(trial.configurationId) ?? 0;
      return trialView(trial, choice, place?.repeat ?? 1, trial.attempts, baseline, place?.followUpPath ?? []);
    })
    .sort(compareTrialPlaces);
  const trialCounts = emptyCounts();
  for (const trial of row.trials) countInto(trialCounts, { state: trial.state, outcome: trial.outcome, n: 1 });
  return {
    ...summary(row, trialCounts),
    taskPrompt: row.taskPrompt,
    testCommand: row.testCommand,
    junitPath: row.junitPath,
    testFiles: parseJson<TestFileView[]>(row.testFiles, []),
    snapshotId: row.snapshotId,
    preflight: row.preflightOutput === null ? null : { exitCode: row.preflightExitCode, output: row.preflightOutput },
    environment: {
      versionId: row.environmentVersionId,
      version: row.environment?.version ?? null,
      imageId: row.imageId,
      imageDigest: row.imageDigest,
    },
    concurrency: row.concurrency,
    agentTimeoutSec: row.agentTimeoutSec,
    evalTimeoutSec: row.evalTimeoutSec,
    tokenBudget: row.tokenBudget,
    createdBy: row.createdBy,
    startedAt: iso(row.startedAt),
    configurations: labelledConfigurations(row.configurations),
    trials,
    budget: { tokens: row.budgetTokens, money: row.budgetMoney },
    rerunOf: row.rerunOf === null ? null : { studyId: row.rerunOf, trialId: row.rerunOfTrial },
  };
}

export interface TrialLocation {
  studyId: string;
  attempt: number;
  projectId: string;
  state: string;
  workerId: string | null;
}

export function createStudyReadQueries(db: Db) {
  return {
    find: (studyId: string) => findStudy(db, studyId),

    async list(options: { projectId?: string | undefined }): Promise<StudySummaryView[]> {
      const rows = await db.study.findMany({
        where: options.projectId ? { projectId: options.projectId } : {},
        include: { project: { select: { name: true } } },
        orderBy: { createdAt: "desc" },
      });
      const byStudy = await countsOf(
        db,
        rows.map((row) => row.id),
      );
      return rows.map((row) => summary(row, byStudy.get(row.id) ?? emptyCounts()));
    },

    async state(
      studyId: string,
    ): Promise<{ state: StudyState; projectId: string; concurrency: number; hasBudget: boolean } | null> {
      const row = await db.study.findUnique({
        where: { id: studyId },
        select: { state: true, projectId: true, concurrency: true, budgetTokens: true, budgetMoney: true },
      });
      if (!row) return null;
      const hasBudget = row.budgetTokens !== null || row.budgetMoney !== null;
      return { state: row.state as StudyState, projectId: row.projectId, concurrency: row.concurrency, hasBudget };
    },

    async studiesInStates(states: readonly StudyState[]): Promise<string[]> {
      const rows = await db.study.findMany({ where: { state: { in: [...states] } }, select: { id: true } });
      return rows.map((row) => row.id);
    },

    async trialTests(trialId: string): Promise<TestResultView[]> {
      const rows = await db.evaluationResult.findMany({
        where: { trialId },
        orderBy: { position: "asc" },
        select: { name: true, status: true, durationMs: true, message: true },
      });
      return rows.map((row) => ({ ...row, status: testStatusSchema.catch("failed").parse(row.status) }));
    },

    /** The per-test rows of every trial of a study (its current attempts), by trial id, in reported order. */
    async studyTests(studyId: string): Promise<Map<string, { name: string; status: TestResultView["status"] }[]>> {
      const rows = await db.evaluationResult.findMany({
        where: { trial: { studyId } },
        orderBy: [{ trialId: "asc" }, { position: "asc" }],
        select: { trialId: true, name: true, status: true },
      });
      const byTrial = new Map<string, { name: string; status: TestResultView["status"] }[]>();
      for (const row of rows) {
        const list = byTrial.get(row.trialId) ?? [];
        list.push({ name: row.name, status: testStatusSchema.catch("failed").parse(row.status) });
        byTrial.set(row.trialId, list);
      }
      return byTrial;
    },

    /** Where a trial is: its study and project, its current attempt, its state and the worker running it. */
    async trialLocation(trialId: string): Promise<TrialLocation | null> {
      const row = await db.trial.findUnique({
        where: { id: trialId },
        select: { studyId: true, attempt: true, state: true, workerId: true, study: { select: { projectId: true } } },
      });
      if (!row) return null;
      const { study, ...trial } = row;
      return { ...trial, projectId: study.projectId };
    },
  };
}
