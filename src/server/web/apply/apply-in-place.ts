import type { AppliedTrialView, ApplyRecordView } from "../../../shared/snapshot-schemas";
import { readKeptApply, undoPlanOf } from "./apply-backup";
import type { ApplyServiceDeps } from "./apply-deps";
import { preflightPlan } from "./apply-preflight";

/**
 * Whether an apply is still in place: its backup is kept and every path it touched is exactly as it
 * left it (the undo's preflight is clean). Then applying the trial again would only meet itself, so the
 * pages show "applied" with Undo instead of that apply's own files as conflicts.
 */
async function inPlace(deps: ApplyServiceDeps, record: ApplyRecordView): Promise<boolean> {
  const kept = await readKeptApply({ dataDir: deps.dataDir, recordId: record.id });
  if (!kept) return false;
  const project = await deps.projects.findById(record.projectId);
  if (!project) return false;
  const conflicts = await preflightPlan({ projectRoot: project.hostPath, plan: undoPlanOf(kept), restoring: true });
  return conflicts.length === 0;
}

/** The trials' (or the study's trials') latest applies that are still in place, with whether each may be undone now. */
export async function appliedTrials(
  deps: ApplyServiceDeps,
  input: { trialIds?: string[]; studyId?: string },
): Promise<AppliedTrialView[]> {
  const records = await deps.records.latestAppliedOfTrials(input);
  const candidates = new Map<string, string | null>();
  const views: AppliedTrialView[] = [];
  for (const record of records) {
    if (!record.trialId || !(await inPlace(deps, record))) continue;
    if (!candidates.has(record.projectId))
      candidates.set(record.projectId, await deps.records.latestUndoCandidate(record.projectId));
    views.push({
      trialId: record.trialId,
      recordId: record.id,
      projectId: record.projectId,
      appliedAt: record.createdAt,
      appliedBy: record.appliedBy,
      files: record.files.length,
      undoable: candidates.get(record.projectId) === record.id,
    });
  }
  return views;
}
