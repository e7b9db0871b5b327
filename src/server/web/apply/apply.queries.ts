import type { Db } from "../../core/db/client";
import type {
  ApplyOutcome,
  ApplyRecordView,
  ConflictView,
  PathTextView,
  PlanAction,
} from "../../../shared/snapshot-schemas";

type ApplyRow = Awaited<ReturnType<Db["applyRecord"]["findUniqueOrThrow"]>>;

const OUTCOMES: readonly ApplyOutcome[] = ["applied", "refused", "rolled-back", "failed", "undone"];

/** How far back history and "the most recent applied record" look. */
const HISTORY_LIMIT = 100;
const UNDO_SEARCH_LIMIT = 200;

function parseList<T>(text: string): T[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

/** A trial whose workspace can be applied, with what the history shows of it. */
export interface TrialSource {
  trialId: string;
  studyId: string;
  studyTitle: string;
  projectId: string;
  state: string;
  workspaceId: string | null;
  configurationLabel: string;
}

type TrialInfo = Pick<TrialSource, "studyId" | "studyTitle" | "configurationLabel">;

const TRIAL_SELECT = {
  id: true,
  state: true,
  workspaceId: true,
  studyId: true,
  study: { select: { title: true, projectId: true } },
  configuration: { select: { position: true, harness: true, model: true, reasoningEffort: true } },
} as const;

function configurationLabel(configuration: {
  position: number;
  harness: string;
  model: string;
  reasoningEffort: string;
}): string {
  if (configuration.harness === "command") return `Configuration ${configuration.position}: command`;
  return `Configuration ${configuration.position}: ${configuration.model}, ${configuration.reasoningEffort} effort`;
}

function toView(
  row: ApplyRow,
  extra: { trial?: TrialInfo | undefined; undoneBy?: string | undefined },
): ApplyRecordView {
  return {
    id: row.id,
    projectId: row.projectId,
    snapshotId: row.snapshotId,
    workspaceId: row.workspaceId,
    planHash: row.planHash,
    appliedBy: row.appliedBy,
    outcome: OUTCOMES.find((outcome) => outcome === row.outcome) ?? "failed",
    files: parseList<PathTextView & { action: PlanAction }>(row.files),
    conflicts: parseList<ConflictView>(row.conflicts),
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    trialId: row.trialId,
    studyId: extra.trial?.studyId ?? null,
    studyTitle: extra.trial?.studyTitle ?? null,
    configurationLabel: extra.trial?.configurationLabel ?? null,
    undoOf: row.undoOf,
    undoneBy: extra.undoneBy ?? null,
    // decided by the service, which also checks that the apply's backup is still kept
    undoable: false,
  };
}

export interface NewApplyRecord extends Pick<
  ApplyRecordView,
  "projectId" | "snapshotId" | "workspaceId" | "planHash" | "appliedBy" | "outcome" | "files" | "conflicts" | "error"
> {
  /** Set when the record's id must be known before it is written (the apply's kept backup is named by it). */
  id?: string;
  trialId?: string | null;
  undoOf?: string | null;
}

async function trialInfo(db: Db, trialIds: string[]): Promise<Map<string, TrialInfo>> {
  if (trialIds.length === 0) return new Map();
  const rows = await db.trial.findMany({ where: { id: { in: trialIds } }, select: TRIAL_SELECT });
  return new Map(
    rows.map((row) => [
      row.id,
      { studyId: row.studyId, studyTitle: row.study.title, configurationLabel: configurationLabel(row.configuration) },
    ]),
  );
}

/** For each of these applied records, the undo record that reversed it. */
async function undoneByOf(db: Db, recordIds: string[]): Promise<Map<string, string>> {
  if (recordIds.length === 0) return new Map();
  const rows = await db.applyRecord.findMany({
    where: { undoOf: { in: recordIds }, outcome: "undone" },
    select: { id: true, undoOf: true },
  });
  return new Map(rows.flatMap((row) => (row.undoOf ? [[row.undoOf, row.id] as const] : [])));
}

async function views(db: Db, rows: ApplyRow[]): Promise<ApplyRecordView[]> {
  const trials = await trialInfo(db, [...new Set(rows.flatMap((row) => (row.trialId ? [row.trialId] : [])))]);
  const undone = await undoneByOf(
    db,
    rows.filter((row) => row.outcome === "applied").map((row) => row.id),
  );
  return rows.map((row) =>
    toView(row, { trial: row.trialId ? trials.get(row.trialId) : undefined, undoneBy: undone.get(row.id) }),
  );
}

/** Every apply attempt — applied, refused, rolled back, failed, and undo attempts — with who, when and what. */
export function createApplyQueries(db: Db) {
  return {
    async record(input: NewApplyRecord): Promise<ApplyRecordView> {
      const row = await db.applyRecord.create({
        data: {
          ...(input.id ? { id: input.id } : {}),
          projectId: input.projectId,
          snapshotId: input.snapshotId,
          workspaceId: input.workspaceId,
          planHash: input.planHash,
          appliedBy: input.appliedBy,
          outcome: input.outcome,
          files: JSON.stringify(input.files),
          conflicts: JSON.stringify(input.conflicts),
          error: input.error,
          trialId: input.trialId ?? null,
          undoOf: input.undoOf ?? null,
        },
      });
      const [view] = await views(db, [row]);
      return view ?? toView(row, {});
    },

    async find(recordId: string): Promise<ApplyRecordView | null> {
      const row = await db.applyRecord.findUnique({ where: { id: recordId } });
      return row ? ((await views(db, [row]))[0] ?? null) : null;
    },

    async listForProject(projectId: string, limit = HISTORY_LIMIT): Promise<ApplyRecordView[]> {
      const rows = await db.applyRecord.findMany({
        where: { projectId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return views(db, rows);
    },

    /** The project's most recent applied record that no undo reversed yet: the only one that may be undone. */
    async latestUndoCandidate(projectId: string): Promise<string | null> {
      const rows = await db.applyRecord.findMany({
        where: { projectId, outcome: "applied" },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: UNDO_SEARCH_LIMIT,
        select: { id: true },
      });
      const undone = await undoneByOf(
        db,
        rows.map((row) => row.id),
      );
      return rows.find((row) => !undone.has(row.id))?.id ?? null;
    },

    /** Per trial (of these, or of a study), its newest applied record that no undo reversed. */
    async latestAppliedOfTrials(input: { trialIds?: string[]; studyId?: string }): Promise<ApplyRecordView[]> {
      const trialIds =
        input.trialIds ??
        (await db.trial.findMany({ where: { studyId: input.studyId ?? "" }, select: { id: true } })).map(
          (row) => row.id,
        );
      if (trialIds.length === 0) return [];
      const rows = await db.applyRecord.findMany({
        where: { trialId: { in: trialIds }, outcome: "applied" },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: UNDO_SEARCH_LIMIT,
      });
      const newest = new Map<string, ApplyRow>();
      for (const row of rows) if (row.trialId && !newest.has(row.trialId)) newest.set(row.trialId, row);
      return (await views(db, [...newest.values()])).filter((view) => !view.undoneBy);
    },

    async trialSource(trialId: string): Promise<TrialSource | null> {
      const row = await db.trial.findUnique({ where: { id: trialId }, select: TRIAL_SELECT });
      if (!row) return null;
      return {
        trialId: row.id,
        studyId: row.studyId,
        studyTitle: row.study.title,
        projectId: row.study.projectId,
        state: row.state,
        workspaceId: row.workspaceId,
        configurationLabel: configurationLabel(row.configuration),
      };
    },
  };
}

export type ApplyQueries = ReturnType<typeof createApplyQueries>;
