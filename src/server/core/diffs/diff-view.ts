import { toPathText } from "../../../lib/files/byte-path";
import type { FileChangeView, FileStateView, WorkspaceDiffView } from "../../../shared/snapshot-schemas";
import type { FileChange, FileState, WorkspaceDiff } from "./workspace-diff";

/** A file state as JSON: a link target as PathText. */
export function stateView(state: FileState | null): FileStateView | null {
  if (!state) return null;
  const { target, ...rest } = state;
  return target === undefined ? rest : { ...rest, target: toPathText(target) };
}

/** A diff as JSON for the API: paths as PathText, link targets too. */
export function changeView(change: FileChange): FileChangeView {
  return { ...change, ...toPathText(change.path), before: stateView(change.before), after: stateView(change.after) };
}

export function diffView(options: { workspaceId: string; diff: WorkspaceDiff }): WorkspaceDiffView {
  const { diff } = options;
  return {
    workspaceId: options.workspaceId,
    snapshotId: diff.snapshotId,
    changes: diff.changes.map(changeView),
    totals: diff.totals,
    skipped: diff.skipped.map((item) => ({ ...toPathText(item.path), kind: item.kind })),
    truncated: diff.truncated,
  };
}
