import fs from "node:fs/promises";
import type { FileState } from "../../core/diffs/workspace-diff";
import { fromPathText, parentOf, toFsPath, toPathText, type BytePath } from "../../../lib/files/byte-path";
import type { FileStateView, PathTextView, PlanAction, PlanStepView } from "../../../shared/snapshot-schemas";
import type { GitMode } from "../../core/snapshots/manifest";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { RemovedDir } from "./apply-commit";
import { planHashOf, stepView, type ApplyPlan, type PlanStep } from "./apply-plan";
import type { Staging } from "./apply-staging";

/**
 * What an apply keeps so it can be undone, in <dataDir>/applies/<record id>/:
 *   tree/       every file or symlink the apply replaced or deleted, at its path, with its mode
 *               (hard links to the moved-aside inodes when the data dir shares the project's
 *               filesystem, copies otherwise);
 *   apply.json  the plan's steps (states before and after), the directories the apply created
 *               and those it removed (with their modes).
 * An undo is the reversed plan, staged from tree/ and committed with the same machinery.
 */
export interface KeptApply {
  version: 1;
  recordId: string;
  projectId: string;
  snapshotId: string;
  workspaceId: string;
  planHash: string;
  steps: PlanStepView[];
  createdDirs: PathTextView[];
  removedDirs: (PathTextView & { mode: number })[];
}

const NO_HARD_LINKS = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

async function linkOrCopy(source: string, dest: Buffer): Promise<void> {
  try {
    await fs.link(source, dest);
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    await fs.copyFile(source, dest, fs.constants.COPYFILE_EXCL);
    await fs.chmod(dest, (await fs.lstat(source)).mode & 0o7777);
  }
}

/** Keeps staging/backup/<n> of every replaced or deleted path under applies/<recordId>/tree/. On failure, keeps nothing. */
export async function keepBackups(options: {
  dataDir: string;
  recordId: string;
  plan: ApplyPlan;
  staging: Staging;
}): Promise<void> {
  const paths = dataDirPaths(options.dataDir).applyBackup(options.recordId);
  try {
    await fs.mkdir(paths.tree, { recursive: true, mode: 0o700 });
    for (const [index, step] of options.plan.steps.entries()) {
      if (!step.before) continue;
      await fs.mkdir(toFsPath(paths.tree, parentOf(step.path)), { recursive: true, mode: 0o700 });
      const source = options.staging.backup(index);
      const dest = toFsPath(paths.tree, step.path);
      if (step.before.type === "symlink") await fs.symlink(await fs.readlink(source, { encoding: "buffer" }), dest);
      else await linkOrCopy(source, dest);
    }
  } catch (error) {
    await fs.rm(paths.dir, { recursive: true, force: true });
    throw error;
  }
}

/** Writes apply.json once the commit finished (it names the directories the commit created and removed). */
export async function writeKeptApply(options: {
  dataDir: string;
  recordId: string;
  plan: ApplyPlan;
  createdDirs: BytePath[];
  removedDirs: RemovedDir[];
}): Promise<void> {
  const { plan } = options;
  const kept: KeptApply = {
    version: 1,
    recordId: options.recordId,
    projectId: plan.projectId,
    snapshotId: plan.snapshotId,
    workspaceId: plan.workspaceId,
    planHash: plan.hash,
    steps: plan.steps.map(stepView),
    createdDirs: options.createdDirs.map(toPathText),
    removedDirs: options.removedDirs.map((dir) => ({ ...toPathText(dir.path), mode: dir.mode })),
  };
  const paths = dataDirPaths(options.dataDir).applyBackup(options.recordId);
  await fs.writeFile(`${paths.meta}.tmp`, JSON.stringify(kept));
  await fs.rename(`${paths.meta}.tmp`, paths.meta);
}

/** The kept backup of an applied record, or null when none was kept (or it was removed). */
export async function readKeptApply(options: { dataDir: string; recordId: string }): Promise<KeptApply | null> {
  const paths = dataDirPaths(options.dataDir).applyBackup(options.recordId);
  try {
    const kept = JSON.parse(await fs.readFile(paths.meta, "utf8")) as KeptApply;
    return kept.version === 1 && kept.recordId === options.recordId ? kept : null;
  } catch {
    return null;
  }
}

/** The kept backups of a project's applies (for removing the project), as absolute directories. */
export async function keptAppliesOfProject(options: { dataDir: string; projectId: string }): Promise<string[]> {
  const paths = dataDirPaths(options.dataDir);
  const names = await fs.readdir(paths.applies).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names) {
    const kept = await readKeptApply({ dataDir: options.dataDir, recordId: name }).catch(() => null);
    if (kept?.projectId === options.projectId) found.push(paths.applyBackup(name).dir);
  }
  return found;
}

export async function removeKeptApply(options: { dataDir: string; recordId: string }): Promise<void> {
  await fs.rm(dataDirPaths(options.dataDir).applyBackup(options.recordId).dir, { recursive: true, force: true });
}

const GIT_MODES: readonly GitMode[] = ["100644", "100755", "120000"];

function stateOf(view: FileStateView | null): FileState | null {
  if (!view) return null;
  const { target, mode, ...rest } = view;
  const gitMode = GIT_MODES.find((known) => known === mode) ?? (view.type === "symlink" ? "120000" : "100644");
  return target === undefined ? { ...rest, mode: gitMode } : { ...rest, mode: gitMode, target: fromPathText(target) };
}

const INVERSE: Record<PlanAction, PlanAction> = { create: "delete", delete: "create", modify: "modify" };

/** The plan that reverses a kept apply: each step's after becomes the expected before, and its before the result. */
export function undoPlanOf(kept: KeptApply): ApplyPlan {
  const steps: PlanStep[] = kept.steps.map((step) => ({
    action: INVERSE[step.action],
    path: fromPathText(step),
    before: stateOf(step.after),
    after: stateOf(step.before),
  }));
  const plan = { projectId: kept.projectId, snapshotId: kept.snapshotId, workspaceId: kept.workspaceId, steps };
  return { ...plan, hash: planHashOf(plan) };
}
