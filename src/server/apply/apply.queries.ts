import type { Db } from "../db/client";
import type {
  ApplyOutcome,
  ApplyRecordView,
  ConflictView,
  PathTextView,
  PlanAction,
} from "../../shared/snapshot-schemas";

type ApplyRow = Awaited<ReturnType<Db["applyRecord"]["findUniqueOrThrow"]>>;

const OUTCOMES: readonly ApplyOutcome[] = ["applied", "refused", "rolled-back", "failed"];

function parseList<T>(text: string): T[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

function toView(row: ApplyRow): ApplyRecordView {
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
  };
}

export type NewApplyRecord = Omit<ApplyRecordView, "id" | "createdAt">;

/** Every apply attempt — applied, refused, rolled back or failed — with who, when and what. */
export function createApplyQueries(db: Db) {
  return {
    async record(input: NewApplyRecord): Promise<ApplyRecordView> {
      const row = await db.applyRecord.create({
        data: {
          projectId: input.projectId,
          snapshotId: input.snapshotId,
          workspaceId: input.workspaceId,
          planHash: input.planHash,
          appliedBy: input.appliedBy,
          outcome: input.outcome,
          files: JSON.stringify(input.files),
          conflicts: JSON.stringify(input.conflicts),
          error: input.error,
        },
      });
      return toView(row);
    },
    async listForProject(projectId: string, limit = 100): Promise<ApplyRecordView[]> {
      const rows = await db.applyRecord.findMany({ where: { projectId }, orderBy: { createdAt: "desc" }, take: limit });
      return rows.map(toView);
    },
  };
}

export type ApplyQueries = ReturnType<typeof createApplyQueries>;
