import { AppError } from "../errors/app-error";
import { diffWorkspace, type DiffCaps } from "../diffs/workspace-diff";
import type { ProjectQueries } from "../projects/projects.queries";
import { toPathText } from "../../lib/files/byte-path";
import { createKeyedLock } from "../locks/keyed-lock";
import { readManifest } from "../snapshots/manifest";
import { readWorkspace } from "../workspaces/workspace-store";
import type { ApplyOutcome, ApplyPreviewView, ApplyRecordView, ConflictView } from "../../shared/snapshot-schemas";
import { commitPlan, type ApplyFs } from "./apply-commit";
import { ApplyConflictError, ApplyRollbackIncompleteError, ApplyRolledBackError } from "./apply-errors";
import { planFromDiff, stepView, type ApplyPlan } from "./apply-plan";
import { preflightPlan, type Conflict } from "./apply-preflight";
import type { ApplyQueries } from "./apply.queries";

export interface ApplyServiceDeps {
  dataDir: string;
  projects: Pick<ProjectQueries, "findById">;
  records: ApplyQueries;
  /** Filesystem calls of the commit step (tests inject failures here). */
  fs?: ApplyFs;
}

/** A plan needs hashes, not patch text. */
const NO_PATCHES: DiffCaps = { maxPatchBytesPerFile: 0, maxTotalPatchBytes: 0, maxTextBytes: 0 };

function conflictView(conflict: Conflict): ConflictView {
  return { ...toPathText(conflict.path), reason: conflict.reason, message: conflict.message };
}

async function locate(deps: ApplyServiceDeps, workspaceId: string) {
  const workspace = await readWorkspace({ dataDir: deps.dataDir, workspaceId });
  const project = await deps.projects.findById(workspace.projectId);
  if (!project)
    throw new AppError({
      code: "NOT_FOUND",
      message: `The project of workspace ${workspaceId} (${workspace.projectId}) no longer exists.`,
    });
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
    caps: NO_PATCHES,
  });
  return { plan: planFromDiff({ diff, projectId: project.id, workspaceId: workspace.id }), totals: diff.totals };
}

interface RunRecord {
  plan: ApplyPlan;
  appliedBy: string;
  outcome: ApplyOutcome;
  conflicts?: Conflict[];
  error?: string;
}

async function record(deps: ApplyServiceDeps, options: RunRecord): Promise<ApplyRecordView> {
  const { plan } = options;
  return deps.records.record({
    projectId: plan.projectId,
    snapshotId: plan.snapshotId,
    workspaceId: plan.workspaceId,
    planHash: plan.hash,
    appliedBy: options.appliedBy,
    outcome: options.outcome,
    files: plan.steps.map((step) => ({ ...toPathText(step.path), action: step.action })),
    conflicts: (options.conflicts ?? []).map(conflictView),
    error: options.error ?? null,
  });
}

/** Commits a clean plan and records the outcome: refused or rolled back are results; anything else is thrown after it is recorded. */
async function commitAndRecord(options: {
  deps: ApplyServiceDeps;
  located: Located;
  plan: ApplyPlan;
  appliedBy: string;
}): Promise<ApplyRecordView> {
  const { deps, located, plan } = options;
  const base = { plan, appliedBy: options.appliedBy };
  try {
    await commitPlan({
      projectRoot: located.project.hostPath,
      plan,
      sourceRoot: located.workspace.path,
      ...(deps.fs ? { fs: deps.fs } : {}),
    });
    return await record(deps, { ...base, outcome: "applied" });
  } catch (error) {
    if (error instanceof ApplyConflictError)
      return record(deps, { ...base, outcome: "refused", conflicts: error.conflicts });
    if (error instanceof ApplyRolledBackError)
      return record(deps, { ...base, outcome: "rolled-back", conflicts: error.conflicts, error: error.message });
    const message = error instanceof Error ? error.message : String(error);
    await record(deps, { ...base, outcome: "failed", error: message });
    if (error instanceof ApplyRollbackIncompleteError)
      throw new AppError({ code: "INTERNAL_SERVER_ERROR", message, cause: error });
    throw new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `Apply could not start (${message}); nothing in the project was changed.`,
      cause: error,
    });
  }
}

/**
 * Applying a workspace's changes to its project: `preview` shows the plan and its conflicts;
 * `run` recomputes the plan, refuses unless its hash is the previewed one and the preflight is
 * clean, and applies it all-or-nothing (apply-commit.ts). Every run is recorded in ApplyRecord.
 */
export function createApplyService(deps: ApplyServiceDeps) {
  const withProjectLock = createKeyedLock();

  return {
    async preview(input: { workspaceId: string }): Promise<ApplyPreviewView> {
      const located = await locate(deps, input.workspaceId);
      const { plan, totals } = await planFor(deps, located);
      const { project } = located;
      const conflicts = await preflightPlan({ projectRoot: project.hostPath, plan });
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
    async run(input: { workspaceId: string; planHash: string; appliedBy: string }): Promise<ApplyRecordView> {
      const located = await locate(deps, input.workspaceId);
      const { project } = located;
      return withProjectLock(project.id, async () => {
        const { plan } = await planFor(deps, located);
        const base = { plan, appliedBy: input.appliedBy };
        if (plan.hash !== input.planHash) {
          return record(deps, {
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
        const conflicts = await preflightPlan({ projectRoot: project.hostPath, plan });
        if (conflicts.length > 0) return record(deps, { ...base, outcome: "refused", conflicts });
        return commitAndRecord({ deps, located, plan, appliedBy: input.appliedBy });
      });
    },

    async history(input: { projectId: string }): Promise<ApplyRecordView[]> {
      return deps.records.listForProject(input.projectId);
    },
  };
}

export type ApplyService = ReturnType<typeof createApplyService>;
