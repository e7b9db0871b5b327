"use client";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { ReviewChangeKind, ReviewFileItem, ReviewFileView } from "../../../../../shared/review-schemas";
import type { editor } from "monaco-editor";
import { DiffEditorLazy, type DiffNavigator } from "../../../../_components/diff-editor";
import { QueryState } from "../../../../_components/query-state";
import { useTRPC } from "../../../../_lib/trpc";
import { changeKindWord } from "../../_review/change-kind";
import type { DiffView } from "../../_review/diff-toggles";
import { FileSidesFacts, isTextDiff, sideDownloadUrl } from "../../_review/file-sides-facts";
import type { ReviewScope } from "./use-review-files";

const FILE_STALE_MS = 60_000;

/**
 * The selected file's diff (snapshot on the left, the trial's or session's on the right), fetched when selected (the
 * file opened first comes with the file list); the next file in the list is prefetched so moving on is instant. Binary, large and symlinked files show
 * their sides' facts and downloads instead.
 */
export function FileDiff({
  subject,
  file,
  initial,
  next,
  view,
  onNavigator,
  onEditor,
}: {
  subject: ReviewScope;
  file: ReviewFileItem;
  /** This file's diff as the file list brought it; null to fetch it. */
  initial: ReviewFileView | null;
  next: ReviewFileItem | null;
  view: DiffView;
  onNavigator: (navigator: DiffNavigator | null) => void;
  onEditor?: (diffEditor: editor.IStandaloneDiffEditor | null) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const query = useQuery(
    trpc.review.file.queryOptions(
      { ...subject, pathKey: file.pathKey },
      // the editor stays mounted while the next file loads: its text is swapped, not the widget
      { staleTime: FILE_STALE_MS, placeholderData: keepPreviousData, initialData: initial ?? undefined },
    ),
  );
  const nextKey = next?.pathKey;
  useEffect(() => {
    if (!nextKey || query.isPending) return;
    void queryClient.prefetchQuery(
      trpc.review.file.queryOptions({ ...subject, pathKey: nextKey }, { staleTime: FILE_STALE_MS }),
    );
  }, [queryClient, trpc, subject, nextKey, query.isPending]);
  return (
    <QueryState query={query} loading={`Loading ${file.path}…`} errorPrefix={`Could not load ${file.path}`}>
      {(data) => (
        <div className="relative h-full" aria-busy={query.isPlaceholderData}>
          {query.isPlaceholderData ? (
            <p role="status" className="absolute right-3 top-1 z-10 rounded bg-panel px-2 text-xs text-muted">
              Loading {file.path}…
            </p>
          ) : null}
          <FileDiffBody
            subject={subject}
            kind={data.pathKey === file.pathKey ? file.kind : null}
            data={data}
            view={view}
            onNavigator={onNavigator}
            onEditor={onEditor}
          />
        </div>
      )}
    </QueryState>
  );
}

function FileDiffBody({
  subject,
  kind,
  data,
  view,
  onNavigator,
  onEditor,
}: {
  subject: ReviewScope;
  kind: ReviewChangeKind | null;
  data: ReviewFileView;
  view: DiffView;
  onNavigator: (navigator: DiffNavigator | null) => void;
  onEditor?: (diffEditor: editor.IStandaloneDiffEditor | null) => void;
}) {
  if (!isTextDiff(data.before, data.after))
    return (
      <FileSidesFacts
        path={data.path}
        columns={[
          { title: "Before", side: data.before, download: sideDownloadUrl(subject, data.pathKey, "before") },
          { title: "After", side: data.after, download: sideDownloadUrl(subject, data.pathKey, "after") },
        ]}
      />
    );
  const { before, after } = data;
  const modeNote =
    before.exists && after.exists && before.mode !== after.mode
      ? `mode ${before.mode ?? "?"} → ${after.mode ?? "?"}`
      : null;
  return (
    <div className="flex h-full min-h-0 flex-col">
      {kind && (modeNote || kind === "added" || kind === "deleted") ? (
        <p className="border-b border-line px-3 py-1 text-xs text-muted">
          {changeKindWord(kind)}
          {modeNote ? ` · ${modeNote}` : ""}
        </p>
      ) : null}
      <div
        className="min-h-0 flex-1"
        data-testid="diff-editor"
        data-path={data.path}
        data-layout={view.sideBySide ? "side-by-side" : "inline"}
        data-against={subject.against ?? "snapshot"}
      >
        <DiffEditorLazy
          original={data.before.text ?? ""}
          modified={data.after.text ?? ""}
          language={data.language}
          sideBySide={view.sideBySide}
          wordWrap={view.wordWrap}
          originalLabel={`${data.path} ${subject.against === "parent" ? "in the parent trial" : "in the snapshot"}`}
          modifiedLabel={`${data.path} after the ${"sessionId" in subject ? "session" : "trial"}`}
          onNavigator={onNavigator}
          onEditor={onEditor}
        />
      </div>
    </div>
  );
}
