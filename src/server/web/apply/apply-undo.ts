import fs from "node:fs/promises";
import { AppError } from "../../core/errors/app-error";
import { requireProjectFolder } from "../../core/storage/project-folder";
import { fromPathText, toFsPath } from "../../../lib/files/byte-path";
import type { ApplyRecordView } from "../../../shared/snapshot-schemas";
import { dataDirPaths } from "../../core/storage/data-dir";
import { readKeptApply, removeKeptApply, undoPlanOf, type KeptApply } from "./apply-backup";
import type { Conflict } from "./apply-conflict";
import { preflightPlan } from "./apply-preflight";
import { commitAndRecord, recordRun } from "./apply-recording";
import type { ApplyServiceDeps } from "./apply-deps";

/**
 * Undoing the most recent apply of a project: the reversed plan (apply-backup.ts) is preflighted
 * against the project — every path the apply touched must still be exactly as the apply left it —
 * then staged from the kept backup and committed all-or-nothing by the same machinery as an apply.
 * Refusals write nothing. Every attempt is an ApplyRecord whose `undoOf` names the apply.
 */

/** Conflict messages compare with the snapshot; an undo compares with what the apply left. */
export function sinceTheApply(conflict: Conflict): Conflict {
  const message = conflict.message
    .replace("elsewhere than in the snapshot", "elsewhere than the apply left it")
    .replaceAll("since the snapshot", "since the apply")
    .replaceAll("in the snapshot", "after the apply");
  return { ...conflict, message };
}

/** Why this record cannot be undone now, or null when it can. */
async function refusal(deps: ApplyServiceDeps, record: ApplyRecordView): Promise<string | null> {
  if (record.outcome !== "applied")
    return record.undoOf
      ? "This record is itself an undo attempt; only an apply can be undone."
      : `This apply was ${record.outcome}, so it changed nothing to undo.`;
  if (record.undoneBy) return `This apply was already undone (record ${record.undoneBy}).`;
  const latest = await deps.records.latestUndoCandidate(record.projectId);
  if (latest !== record.id)
    return `Only the most recent apply of a project can be undone; undo record ${latest ?? "?"} first.`;
  return null;
}

async function findUndoable(deps: ApplyServiceDeps, recordId: string): Promise<{ kept: KeptApply; hostPath: string }> {
  const record = await deps.records.find(recordId);
  if (!record) throw new AppError({ code: "NOT_FOUND", field: "recordId", message: `No apply record ${recordId}.` });
  const refused = await refusal(deps, record);
  if (refused) throw new AppError({ code: "CONFLICT", field: "recordId", message: refused });
  const kept = await readKeptApply({ dataDir: deps.dataDir, recordId });
  if (!kept)
    throw new AppError({
      code: "CONFLICT",
      field: "recordId",
      message:
        "This apply kept no backup of the files it replaced (it was made by an older version), so it cannot be undone.",
    });
  const project = await deps.projects.findById(record.projectId);
  if (!project) throw new AppError({ code: "NOT_FOUND", message: `The project ${record.projectId} no longer exists.` });
  requireProjectFolder(project.hostPath); // undo writes the kept files back into it
  return { kept, hostPath: project.hostPath };
}

/** Directories the apply removed come back with their permission bits (the commit creates them 0755). */
async function restoreDirModes(root: string, kept: KeptApply): Promise<void> {
  for (const dir of kept.removedDirs) {
    const target = toFsPath(root, fromPathText(dir));
    const stat = await fs.lstat(target).catch(() => null);
    if (stat?.isDirectory() && (stat.mode & 0o7777) !== dir.mode) await fs.chmod(target, dir.mode);
  }
}

/** Checks the record may be undone (CONFLICT otherwise), then undoes it or records why not. Call under the project lock. */
export async function undoApply(
  deps: ApplyServiceDeps,
  input: { recordId: string; undoneBy: string },
): Promise<ApplyRecordView> {
  const { kept, hostPath } = await findUndoable(deps, input.recordId);
  const plan = undoPlanOf(kept);
  const base = { plan, appliedBy: input.undoneBy, undoOf: input.recordId };
  const conflicts = await preflightPlan({ projectRoot: hostPath, plan, restoring: true });
  if (conflicts.length > 0)
    return recordRun(deps.records, { ...base, outcome: "refused", conflicts: conflicts.map(sinceTheApply) });
  const tree = dataDirPaths(deps.dataDir).applyBackup(input.recordId).tree;
  return commitAndRecord({
    records: deps.records,
    commit: {
      projectRoot: hostPath,
      plan,
      sourceRoot: tree,
      keepSourceModes: true,
      removeDirs: kept.createdDirs.map(fromPathText),
      ...(deps.fs ? { fs: deps.fs } : {}),
    },
    base,
    success: "undone",
    wording: sinceTheApply,
    afterCommitFailure: "The undo went through, but tidying up after it failed",
    afterCommit: async () => {
      await restoreDirModes(hostPath, kept);
      await removeKeptApply({ dataDir: deps.dataDir, recordId: input.recordId });
    },
  });
}
