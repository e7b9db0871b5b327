import { AppError } from "../../core/errors/app-error";
import { diffWorkspace, type DiffCaps } from "../../core/diffs/workspace-diff";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import { readManifest } from "../../core/snapshots/manifest";
import { requireProjectFolder } from "../../core/storage/project-folder";
import { readWorkspace } from "../../core/workspaces/workspace-store";
import type { AppliedTrialView, ApplyPreviewView, ApplyRecordView } from "../../../shared/snapshot-schemas";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import type { ApplyServiceDeps } from "./apply-deps";
import { keepBackups, readKeptApply, writeKeptApply } from "./apply-backup";
import { appliedTrials } from "./apply-in-place";
import { planFromDiff, stepView, type ApplyPlan } from "./apply-plan";
import { preflightPlan } from "./apply-preflight";
import { commitAndRecord, conflictView, recordRun } from "./apply-recording";
import { undoApply } from "./apply-undo";
import type { TrialSource } from "./apply.queries";

/** A plan needs hashes, not patch text. */
const NO_PATCHES: DiffCaps = { maxPatchBytesPerFile: 0, maxTotalPatchBytes: 0, maxTextBytes: 0 };

async function locate(deps: ApplyServiceDeps, workspaceId: string) {
  const workspace = await readWorkspace({ dataDir: deps.dataDir, workspaceId });
  const project = await deps.projects.findById(workspace.projectId);
  if (!project)
    throw new AppError({
      code: "NOT_FOUND",
      message: `The project of workspace ${workspaceId} (${workspace.projectId}) no longer exists.`,
    });
  requireProjectFolder(project.hostPath); // a plan is checked against it and written into it
  return { workspace, project };
}

type Located = Awaited<ReturnType<typeof locate>>;

async function planFor(deps: ApplyServiceDeps, located: Located) {
  const { workspace, project } = located;
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: workspace.snapshotId });
  const diff = await diffWorkspace({
    dataDir: deps.dataDir,
    manifest,
    workspaceRoot: workspace.path,
    overlayLower: workspace.overlay?.lower ?? null,
    caps: NO_PATCHES,
  });
  return {
    plan: planFromDiff({ diff, projectId: project.id, workspaceId: workspace.id }),
    totals: diff.totals,
    existingLinks: manifest.entries.filter((entry) => entry.type === "symlink").map((entry) => entry.path),
  };
}

/** Commits a clean plan, keeping what it replaces under applies/<record id>/ so it can be undone. */
function commitAndKeep(options: {
  deps: ApplyServiceDeps;
  located: Located;
  plan: ApplyPlan;
  appliedBy: string;
  trialId: string | null;
}): Promise<ApplyRecordView> {
  const { deps, located, plan } = options;
  const { dataDir } = deps;
  return commitAndRecord({
    records: deps.records,
    commit: {
      projectRoot: located.project.hostPath,
      plan,
      // every file a plan writes is a changed one: its bytes are in the workspace's own files (an overlay's upper layer)
      sourceRoot: located.workspace.path,
      ...(deps.fs ? { fs: deps.fs } : {}),
    },
    keepBackups: (recordId) => (staging) => keepBackups({ dataDir, recordId, plan, staging }),
    base: { plan, appliedBy: options.appliedBy, trialId: options.trialId },
    success: "applied",
    afterCommitFailure: "Applied, but the record of it needed for undo could not be written, so it cannot be undone",
    afterCommit: (result, recordId) => writeKeptApply({ dataDir, recordId, plan, ...result }),
  });
}

/** A finished trial of an existing study, with a workspace to apply. */
async function trialToApply(deps: ApplyServiceDeps, trialId: string): Promise<TrialSource & { workspaceId: string }> {
  const trial = await deps.records.trialSource(trialId);
  if (!trial) throw new AppError({ code: "NOT_FOUND", field: "trialId", message: `No trial ${trialId}.` });
  if (!isTerminalTrialState(trial.state))
    throw new AppError({
      code: "CONFLICT",
      field: "trialId",
      message: `This trial is ${trial.state}; apply it once it has finished.`,
    });
  if (!trial.workspaceId)
    throw new AppError({
      code: "CONFLICT",
      field: "trialId",
      message: "This trial has no workspace (it ended before its workspace was made), so there is nothing to apply.",
    });
  return { ...trial, workspaceId: trial.workspaceId };
}

/**
 * Applying a workspace's changes to its project: `preview` shows the plan and its conflicts;
 * `run` recomputes the plan, refuses unless its hash is the previewed one and the preflight is
 * clean, and applies it all-or-nothing (apply-commit.ts). Every run is recorded in ApplyRecord.
 */
export function createApplyService(deps: ApplyServiceDeps) {
  const withProjectLock = createKeyedLock();

  const service = {
    async preview(input: { workspaceId: string }): Promise<ApplyPreviewView> {
      const located = await locate(deps, input.workspaceId);
      const { plan, totals, existingLinks } = await planFor(deps, located);
      const { project } = located;
      const conflicts = await preflightPlan({ projectRoot: project.hostPath, plan, existingLinks });
      return {
        projectId: plan.projectId,
        snapshotId: plan.snapshotId,
        workspaceId: plan.workspaceId,
        planHash: plan.hash,
        steps: plan.steps.map(stepView),
        conflicts: conflicts.map(conflictView),
        totals,
      };
    },

    /**
     * Applies the previewed plan. Refusals and rollbacks are results (recorded, outcome set), not
     * errors; only a rollback that could not finish is thrown, because the project then needs a human.
     */
    async run(input: {
      workspaceId: string;
      planHash: string;
      appliedBy: string;
      trialId?: string | null;
    }): Promise<ApplyRecordView> {
      const located = await locate(deps, input.workspaceId);
      const { project } = located;
      const trialId = input.trialId ?? null;
      return withProjectLock(project.id, async () => {
        const { plan, existingLinks } = await planFor(deps, located);
        const base = { plan, appliedBy: input.appliedBy, trialId };
        if (plan.hash !== input.planHash) {
          return recordRun(deps.records, {
            ...base,
            outcome: "refused",
            conflicts: [
              {
                path: "",
                reason: "plan-changed",
                message:
                  "The workspace or the snapshot changed since the preview: the plan is not the one that was reviewed. Preview again.",
              },
            ],
          });
        }
        const conflicts = await preflightPlan({ projectRoot: project.hostPath, plan, existingLinks });
        if (conflicts.length > 0) return recordRun(deps.records, { ...base, outcome: "refused", conflicts });
        return commitAndKeep({ deps, located, plan, appliedBy: input.appliedBy, trialId });
      });
    },

    /**
     * The plan for applying a finished trial's workspace to its project, and the trial's latest apply
     * when it is still in place (its files then read as conflicts: the UI offers Undo instead).
     */
    async previewTrial(input: { trialId: string }): Promise<ApplyPreviewView> {
      const trial = await trialToApply(deps, input.trialId);
      const [applied] = await appliedTrials(deps, { trialIds: [trial.trialId] });
      const preview = await service.preview({ workspaceId: trial.workspaceId });
      return { ...preview, trialId: trial.trialId, applied: applied ?? null };
    },

    /** A study's trials whose latest apply is still in place ("applied · Undo" on its pages). */
    appliedTrials(input: { studyId: string }): Promise<AppliedTrialView[]> {
      return appliedTrials(deps, input);
    },

    /** Applies a finished trial's workspace by the previewed plan hash; the record names the trial. */
    async runTrial(input: { trialId: string; planHash: string; appliedBy: string }): Promise<ApplyRecordView> {
      const trial = await trialToApply(deps, input.trialId);
      return service.run({ ...input, workspaceId: trial.workspaceId, trialId: trial.trialId });
    },

    /**
     * Reverses the project's most recent apply (apply-undo.ts): refused, with nothing written, when a
     * file it touched changed since; CONFLICT when this record is not the one that may be undone.
     */
    async undo(input: { recordId: string; undoneBy: string }): Promise<ApplyRecordView> {
      const record = await deps.records.find(input.recordId);
      if (!record)
        throw new AppError({ code: "NOT_FOUND", field: "recordId", message: `No apply record ${input.recordId}.` });
      return withProjectLock(record.projectId, () => undoApply(deps, input));
    },

    /** Newest first; `undoable` marks the one record applies.undo accepts now, if any. */
    async history(input: { projectId: string }): Promise<ApplyRecordView[]> {
      const records = await deps.records.listForProject(input.projectId);
      const candidate = await deps.records.latestUndoCandidate(input.projectId);
      const kept = candidate ? await readKeptApply({ dataDir: deps.dataDir, recordId: candidate }) : null;
      return records.map((record) => ({ ...record, undoable: kept !== null && record.id === candidate }));
    },
  };
  return service;
}

export type ApplyService = ReturnType<typeof createApplyService>;
