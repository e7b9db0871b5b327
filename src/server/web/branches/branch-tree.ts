import { ancestorsOf, displayPath, fromBytes, type BytePath } from "../../../lib/files/byte-path";
import { AppError } from "../../core/errors/app-error";
import type { FileChange } from "../../core/diffs/workspace-diff";
import { runProjectGit } from "../../core/git/project-git";
import type { ManifestEntry } from "../../core/snapshots/manifest";

/**
 * The check that makes a branch exactly the trial's patch: every path the trial changed must be in the
 * base commit as it was in the snapshot (same mode and blob, or absent from both), and the base commit
 * must have nothing in the way of the new paths (a file where the trial writes a folder, files under a
 * path the trial makes a file) that the snapshot did not have. A snapshot also holds what was not
 * committed (edits, untracked files); when the trial touched one of those, the branch would carry that
 * uncommitted work too, or lose it, so it is refused, naming the file.
 */
export interface BaseEntry {
  mode: string;
  oid: string;
}

/** Every blob, link and submodule of a commit's tree, by path (bytes as a byte string). */
export async function baseTree(options: { gitDir: string; commit: string }): Promise<Map<BytePath, BaseEntry>> {
  const out = await runProjectGit({
    gitDir: options.gitDir,
    args: ["ls-tree", "-r", "-z", "--full-tree", options.commit],
    timeoutMs: 120_000,
  });
  const entries = new Map<BytePath, BaseEntry>();
  let start = 0;
  while (start < out.length) {
    const end = out.indexOf(0, start);
    const record = out.subarray(start, end < 0 ? out.length : end);
    start = end < 0 ? out.length : end + 1;
    const tab = record.indexOf(9);
    if (tab < 0) continue;
    const [mode = "", , oid = ""] = record.subarray(0, tab).toString("latin1").split(" ");
    entries.set(fromBytes(record.subarray(tab + 1)), { mode, oid });
  }
  return entries;
}

function refusal(options: { path: BytePath; commit: string; what: string }): AppError {
  return new AppError({
    code: "PRECONDITION_FAILED",
    field: "trialId",
    message:
      `${displayPath(options.path)} ${options.what} (commit ${options.commit.slice(0, 12)}), so a branch from that commit ` +
      "would not be the trial's patch. Use Apply to project… instead (it applies to the folder as it is), or commit " +
      "those changes, start a new study and apply its trial as a branch.",
  });
}

/** Throws a PRECONDITION_FAILED naming the first path where the base commit is not the snapshot. */
export function checkBaseMatchesSnapshot(options: {
  changes: readonly FileChange[];
  snapshot: ReadonlyMap<BytePath, ManifestEntry>;
  base: ReadonlyMap<BytePath, BaseEntry>;
  commit: string;
}): void {
  const { changes, snapshot, base, commit } = options;
  const deleted = new Set(changes.filter((change) => !change.after).map((change) => change.path));
  for (const change of changes) {
    const before = change.before ? snapshot.get(change.path) : undefined;
    const inBase = base.get(change.path);
    if (!before && inBase)
      throw refusal({ path: change.path, commit, what: "is in the study's commit but was not in its snapshot" });
    if (before && !inBase)
      throw refusal({
        path: change.path,
        commit,
        what: "was in the study's snapshot but not in its commit: it was not committed when the study started",
      });
    if (before && inBase && (before.mode !== inBase.mode || before.oid !== inBase.oid))
      throw refusal({
        path: change.path,
        commit,
        what: "had uncommitted changes when the study started: the snapshot's copy differs from the study's commit",
      });
    if (!change.after) continue;
    for (const dir of ancestorsOf(change.path))
      if (base.has(dir) && !deleted.has(dir))
        throw refusal({
          path: dir,
          commit,
          what: "is a file (or submodule) in the study's commit, where the trial has a folder",
        });
  }
  // a path the trial added as a file that is a folder in the commit: its files must all be deleted by the trial
  const added = new Set(changes.filter((change) => change.after && !change.before).map((change) => change.path));
  if (added.size === 0) return;
  for (const path of base.keys()) {
    if (deleted.has(path)) continue;
    const folder = ancestorsOf(path).find((dir) => added.has(dir));
    if (folder !== undefined)
      throw refusal({
        path,
        commit,
        what: "is in the study's commit but not in its snapshot, under a path the trial made a file",
      });
  }
}
