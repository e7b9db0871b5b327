import type { Db } from "../../core/db/client";
import { trialNumbering } from "../studies/trial-numbering";
import { configurationView, labelledConfigurations, trialView, verdictFromColumns } from "../studies/study-views";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { invariantEventSchema, type InvariantEvent } from "../../../shared/event-catalog";

/** A trial as the review sees it: its current attempt, its configuration and where its study's snapshot is. */
export interface ReviewTrialRecord {
  trial: TrialView;
  studyId: string;
  projectId: string;
  snapshotId: string | null;
  configuration: ConfigurationView;
}

/** A session as the review sees it (a private copy's workspace; a direct session has none). */
export interface ReviewSessionRecord {
  id: string;
  projectId: string;
  mode: string;
  state: string;
  workspaceId: string | null;
  endedAt: string | null;
}

/** The event types a transcript is made of (the chatty `trial.log` is not one: the log has its own download). */
const TRANSCRIPT_TYPES = [
  "trial.started",
  "trial.progress",
  "trial.finished",
  "agent.started",
  "agent.events",
  "agent.finished",
] as const;

async function trialRecords(db: Db, where: { id: string } | { id: { in: string[] } }): Promise<ReviewTrialRecord[]> {
  const rows = await db.trial.findMany({
    where,
    include: {
      configuration: true,
      study: {
        select: {
          projectId: true,
          snapshotId: true,
          baselinePassed: true,
          baselineFailed: true,
          baselineSkipped: true,
          baselineTotal: true,
          baselineSource: true,
          baselineOk: true,
          configurations: { orderBy: { position: "asc" } },
        },
      },
    },
  });
  const configurationIds = [...new Set(rows.map((row) => row.configurationId))];
  // repeat numbers count every trial of the configuration, in creation order
  const siblings = await db.trial.findMany({ where: { configurationId: { in: configurationIds } } });
  const numbers = trialNumbering(siblings);
  return rows.map((row) => {
    const { configuration, study, ...trial } = row;
    const place = numbers.get(row.id);
    return {
      trial: trialView(
        trial,
        configuration.position,
        place?.repeat ?? 1,
        [],
        verdictFromColumns("baseline", study),
        place?.followUpPath ?? [],
      ),
      studyId: row.studyId,
      projectId: study.projectId,
      snapshotId: study.snapshotId,
      // labelled among the study's configurations, as the study page shows it
      configuration:
        labelledConfigurations(study.configurations).find((candidate) => candidate.id === configuration.id) ??
        configurationView(configuration),
    };
  });
}

/** Reading trials and their recorded events for the review: plain objects, never rows. */
export function createReviewQueries(db: Db) {
  return {
    async trial(trialId: string): Promise<ReviewTrialRecord | null> {
      return (await trialRecords(db, { id: trialId }))[0] ?? null;
    },

    /** The given trials, in the order asked (unknown ids are left out). */
    async trials(trialIds: readonly string[]): Promise<ReviewTrialRecord[]> {
      const records = await trialRecords(db, { id: { in: [...trialIds] } });
      const byId = new Map(records.map((record) => [record.trial.id, record]));
      return trialIds.flatMap((id) => byId.get(id) ?? []);
    },

    /** A session as its review sees it: where its private copy is, and whether it may still change. */
    async session(sessionId: string): Promise<ReviewSessionRecord | null> {
      const row = await db.session.findUnique({
        where: { id: sessionId },
        select: { id: true, projectId: true, mode: true, state: true, workspaceId: true, endedAt: true },
      });
      return row ? { ...row, endedAt: row.endedAt?.toISOString() ?? null } : null;
    },

    /** The follow-ups of a trial (review feedback sent back to its agent), oldest first. */
    async followUpIds(trialId: string): Promise<string[]> {
      const rows = await db.trial.findMany({
        where: { parentTrialId: trialId },
        orderBy: [{ queuedAt: "asc" }, { id: "asc" }],
        select: { id: true },
      });
      return rows.map((row) => row.id);
    },

    async studySnapshot(studyId: string): Promise<{ snapshotId: string | null } | null> {
      return db.study.findUnique({ where: { id: studyId }, select: { snapshotId: true } });
    },

    /** A trial's recorded events of the transcript's types, oldest first. */
    async transcriptEvents(trialId: string): Promise<InvariantEvent[]> {
      const rows = await db.eventLog.findMany({
        where: { trialId, type: { in: [...TRANSCRIPT_TYPES] } },
        orderBy: { id: "asc" },
        select: { payload: true },
      });
      return rows.flatMap((row) => {
        const parsed = invariantEventSchema.safeParse(JSON.parse(row.payload));
        return parsed.success ? [parsed.data] : [];
      });
    },
  };
}

export type ReviewQueries = ReturnType<typeof createReviewQueries>;
