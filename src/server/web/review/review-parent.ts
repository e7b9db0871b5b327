import { AppError } from "../../core/errors/app-error";
import { diffLines, splitLines } from "../../core/diffs/line-diff";
import type { FileChange, FileState } from "../../core/diffs/workspace-diff";
import type { BytePath } from "../../../lib/files/byte-path";
import type { ReviewSide } from "../../../shared/review-schemas";
import type { ReviewDiff } from "./diff-cache";
import { findTrial, trialDiff, trialSide, type ReviewContext } from "./review-trials";
import type { ReviewTrialRecord } from "./review.queries";

/**
 * A follow-up's changes against its parent trial's result, not against the snapshot: only what the
 * follow-up's agent changed after the feedback. Both workspaces are diffed against the same snapshot
 * (cached as any review), so a path differs between them when its state after the parent differs from its
 * state after the child (content, mode or type); line counts come from the two sides' text.
 */
export interface ParentDiff {
  child: ReviewDiff;
  parent: ReviewDiff;
  changes: FileChange[];
  byPath: Map<BytePath, FileChange>;
}

/** A path's state in a workspace: its change's result, else the snapshot's entry, else none. */
function stateIn(diff: ReviewDiff, path: BytePath): FileState | null {
  const change = diff.byPath.get(path);
  if (change) return change.after;
  const entry = diff.tracked.get(path);
  if (!entry) return null;
  return {
    type: entry.type,
    mode: entry.mode,
    size: entry.size,
    sha256: entry.sha256,
    ...(entry.target !== undefined ? { target: entry.target } : {}),
  };
}

function lineCounts(before: ReviewSide, after: ReviewSide) {
  const binary = (before.exists && before.reason === "binary") || (after.exists && after.reason === "binary");
  const tooLarge = before.reason === "too-large" || after.reason === "too-large";
  if (binary || tooLarge) return { binary, insertions: 0, deletions: 0, patchTruncated: tooLarge };
  let insertions = 0;
  let deletions = 0;
  for (const edit of diffLines(splitLines(before.text ?? ""), splitLines(after.text ?? ""))) {
    if (edit.op === "insert") insertions += edit.length;
    if (edit.op === "delete") deletions += edit.length;
  }
  return { binary, insertions, deletions, patchTruncated: false };
}

async function changeBetween(parent: ReviewDiff, child: ReviewDiff, path: BytePath): Promise<FileChange | null> {
  const before = stateIn(parent, path);
  const after = stateIn(child, path);
  if (before?.sha256 === after?.sha256 && before?.mode === after?.mode && before?.type === after?.type) return null;
  const [beforeSide, afterSide] = await Promise.all([trialSide(parent, path), trialSide(child, path)]);
  return {
    path,
    status: before === null ? "added" : after === null ? "deleted" : "modified",
    before,
    after,
    contentChanged: before?.sha256 !== after?.sha256,
    modeChanged: before !== null && after !== null && before.mode !== after.mode,
    typeChanged: before !== null && after !== null && before.type !== after.type,
    patch: null,
    ...lineCounts(beforeSide, afterSide),
  };
}

/** The parent of a follow-up, or a clear refusal for a trial that is none. */
export async function parentOf(context: ReviewContext, record: ReviewTrialRecord): Promise<ReviewTrialRecord> {
  const parentId = record.trial.parentTrialId;
  if (!parentId)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "against",
      message: `Trial ${record.trial.id} is no follow-up: it has no parent to compare with. Show it against the snapshot.`,
    });
  return findTrial(context, parentId);
}

export async function parentDiff(context: ReviewContext, trialId: string): Promise<ParentDiff> {
  const record = await findTrial(context, trialId);
  const parentRecord = await parentOf(context, record);
  const [child, parent] = await Promise.all([trialDiff(context, record), trialDiff(context, parentRecord)]);
  // byte strings: plain string order is byte order (byte-path.ts)
  const paths = [...new Set([...parent.byPath.keys(), ...child.byPath.keys()])].sort();
  const changes = (await Promise.all(paths.map((path) => changeBetween(parent, child, path)))).filter(
    (change): change is FileChange => change !== null,
  );
  return { child, parent, changes, byPath: new Map(changes.map((change) => [change.path, change])) };
}
