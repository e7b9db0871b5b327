import { randomBytes } from "node:crypto";
import { AppError } from "../../core/errors/app-error";
import { toPathText } from "../../../lib/files/byte-path";
import type { ApplyOutcome, ApplyRecordView, ConflictView, CurrentFileView } from "../../../shared/snapshot-schemas";
import { commitPlan, type CommitOptions, type CommitResult } from "./apply-commit";
import { ApplyConflictError, ApplyRollbackIncompleteError, ApplyRolledBackError } from "./apply-errors";
import type { ApplyPlan } from "./apply-plan";
import type { Conflict, CurrentState } from "./apply-conflict";
import type { ApplyQueries } from "./apply.queries";
import { messageOf } from "../../../shared/error-message";

/** Recording apply and undo attempts: every outcome is an ApplyRecord. */

function currentView(current: CurrentState): CurrentFileView {
  if (!current) return { exists: false, type: null, mode: null, size: null, sha256: null };
  if (current.type === "directory" || current.type === "other")
    return { exists: true, type: current.type, mode: null, size: null, sha256: null };
  return { exists: true, type: current.type, mode: current.mode, size: current.size, sha256: current.sha256 };
}

export function conflictView(conflict: Conflict): ConflictView {
  const view: ConflictView = { ...toPathText(conflict.path), reason: conflict.reason, message: conflict.message };
  return conflict.current === undefined ? view : { ...view, current: currentView(conflict.current) };
}

export interface RunRecord {
  plan: ApplyPlan;
  appliedBy: string;
  outcome: ApplyOutcome;
  conflicts?: Conflict[];
  error?: string;
  id?: string;
  trialId?: string | null;
  undoOf?: string | null;
}

export async function recordRun(records: ApplyQueries, options: RunRecord): Promise<ApplyRecordView> {
  const { plan } = options;
  return records.record({
    ...(options.id ? { id: options.id } : {}),
    projectId: plan.projectId,
    snapshotId: plan.snapshotId,
    workspaceId: plan.workspaceId,
    planHash: plan.hash,
    appliedBy: options.appliedBy,
    outcome: options.outcome,
    files: plan.steps.map((step) => ({ ...toPathText(step.path), action: step.action })),
    conflicts: (options.conflicts ?? []).map(conflictView),
    error: options.error ?? null,
    trialId: options.trialId ?? null,
    undoOf: options.undoOf ?? null,
  });
}

/** An id shaped like the cuids Prisma gives other records (lowercase letters and digits, starting with "c"). */
function newRecordId(): string {
  return `c${Date.now().toString(36)}${randomBytes(8).toString("hex")}`;
}

/** A failed commit as a record: refused or rolled back are results; anything else is thrown after it is recorded. */
async function recordFailure(options: {
  records: ApplyQueries;
  base: Omit<RunRecord, "outcome" | "id">;
  error: unknown;
  what: string;
  reword: (conflicts: Conflict[]) => Conflict[];
}): Promise<ApplyRecordView> {
  const { records, base, error, reword } = options;
  if (error instanceof ApplyConflictError)
    return recordRun(records, { ...base, outcome: "refused", conflicts: reword(error.conflicts) });
  if (error instanceof ApplyRolledBackError)
    return recordRun(records, {
      ...base,
      outcome: "rolled-back",
      conflicts: reword(error.conflicts),
      error: error.message,
    });
  const message = messageOf(error);
  await recordRun(records, { ...base, outcome: "failed", error: message });
  if (error instanceof ApplyRollbackIncompleteError)
    throw new AppError({ code: "INTERNAL_SERVER_ERROR", message, cause: error });
  throw new AppError({
    code: "INTERNAL_SERVER_ERROR",
    message: `${options.what} could not start (${message}); nothing in the project was changed.`,
    cause: error,
  });
}

/**
 * Commits a clean plan and records the outcome under a fresh id, known before the commit so the
 * kept backup can be named by it. `success` is the outcome when it went through (applied, undone);
 * `afterCommit` runs then, and if it fails the record says so in `error` (the commit stands).
 * `wording` rephrases conflict messages (an undo compares with the apply, not the snapshot).
 */
export async function commitAndRecord(options: {
  records: ApplyQueries;
  commit: Omit<CommitOptions, "keepBackups">;
  keepBackups?: (recordId: string) => NonNullable<CommitOptions["keepBackups"]>;
  base: Omit<RunRecord, "outcome" | "id">;
  success: ApplyOutcome;
  afterCommit?: (result: CommitResult, recordId: string) => Promise<void>;
  afterCommitFailure?: string;
  wording?: (conflict: Conflict) => Conflict;
}): Promise<ApplyRecordView> {
  const { records, base } = options;
  const id = newRecordId();
  const reword = (conflicts: Conflict[]) => conflicts.map(options.wording ?? ((conflict) => conflict));
  let result: CommitResult;
  try {
    result = await commitPlan({
      ...options.commit,
      ...(options.keepBackups ? { keepBackups: options.keepBackups(id) } : {}),
    });
  } catch (error) {
    return recordFailure({ records, base, error, reword, what: options.success === "undone" ? "Undo" : "Apply" });
  }
  const error = await (options.afterCommit?.(result, id) ?? Promise.resolve()).then(
    () => null,
    (failure: unknown) => `${options.afterCommitFailure ?? "A step after the commit failed"}: ${messageOf(failure)}`,
  );
  return recordRun(records, { ...base, id, outcome: options.success, ...(error ? { error } : {}) });
}
