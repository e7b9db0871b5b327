import { createHash } from "node:crypto";
import type { FileChange, FileState, WorkspaceDiff } from "../../core/diffs/workspace-diff";
import { displayPath, toPathText, type BytePath } from "../../../lib/files/byte-path";
import type { PlanAction, PlanStepView } from "../../../shared/snapshot-schemas";
import { stateView } from "../../core/diffs/diff-view";

/**
 * An apply plan: what applying a workspace would do to the project, one step per changed path,
 * each with the state the project must still be in (`before`, as in the snapshot) and the state it
 * will be left in (`after`). The plan's hash is what a reviewer confirms: `apply.run` recomputes
 * the plan and refuses if the hash differs, so what is applied is exactly what was previewed.
 */
export interface PlanStep {
  action: PlanAction;
  path: BytePath;
  /** Expected current state in the project; null = the path must not exist. */
  before: FileState | null;
  /** State after applying; null = removed. */
  after: FileState | null;
}

export interface ApplyPlan {
  projectId: string;
  snapshotId: string;
  workspaceId: string;
  steps: PlanStep[];
  hash: string;
}

export function stepView(step: PlanStep): PlanStepView {
  return {
    action: step.action,
    ...toPathText(step.path),
    before: stateView(step.before),
    after: stateView(step.after),
  };
}

function actionOf(change: FileChange): PlanAction {
  return change.status === "added" ? "create" : change.status === "deleted" ? "delete" : "modify";
}

export function planHashOf(plan: Omit<ApplyPlan, "hash">): string {
  const hash = createHash("sha256");
  hash.update(`invariant-apply-plan/1\0${plan.projectId}\0${plan.snapshotId}\0${plan.workspaceId}\0`);
  for (const step of plan.steps) hash.update(`${JSON.stringify(stepView(step))}\n`);
  return hash.digest("hex");
}

export function planFromDiff(options: { diff: WorkspaceDiff; projectId: string; workspaceId: string }): ApplyPlan {
  const steps = options.diff.changes.map((change) => ({
    action: actionOf(change),
    path: change.path,
    before: change.before,
    after: change.after,
  }));
  const plan = {
    projectId: options.projectId,
    snapshotId: options.diff.snapshotId,
    workspaceId: options.workspaceId,
    steps,
  };
  return { ...plan, hash: planHashOf(plan) };
}

/** One line per step for logs and the CLI: "modify src/a.ts". */
export function describeStep(step: PlanStep): string {
  return `${step.action} ${displayPath(step.path)}`;
}
