"use client";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import type { ReviewFileItem, ReviewSummaryView } from "../../../../../shared/review-schemas";
import { ErrorMessage } from "../../../../_components/ui";
import { describeError } from "../../../../_lib/errors";
import { ChangeKindLegend } from "../../_review/change-kind";
import { wideClass } from "../../_review/wide";
import { TestSteeringWarning } from "../../test-steering-warning";
import { ChangesPane } from "./changes-pane";
import { FileTree } from "./file-tree";
import { ReviewHeader } from "./review-header";
import { ReviewTabs, type ReviewTab } from "./review-tabs";
import { TestsPanel } from "./tests-panel";
import { TranscriptPanel } from "./transcript-panel";
import { useReviewFiles } from "./use-review-files";
import { useSelectedFile } from "./use-selected-file";

const NO_FILES: readonly ReviewFileItem[] = [];

/** The review of one trial: header; the changed files beside the diff, the transcript or the tests. */
export function ReviewView({ summary, opened }: { summary: ReviewSummaryView; opened: string | true }) {
  const { trialId, studyId } = summary;
  const files = useReviewFiles(trialId, opened);
  const [filter, setFilter] = useState("");
  const deferredFilter = useDeferredValue(filter.trim().toLowerCase());
  const visible = useMemo(
    () =>
      deferredFilter ? files.items.filter((item) => item.path.toLowerCase().includes(deferredFilter)) : files.items,
    [files.items, deferredFilter],
  );
  // the tree's rows render in a deferred pass after the first commit, so the selected file's request is
  // already out (its effect runs at that commit) while React lays out up to 500 rows
  const treeItems = useDeferredValue(visible, NO_FILES);
  const [tab, setTab] = useState<ReviewTab>("changes");
  const [selected, select] = useSelectedFile(visible);
  const selectedIndex = visible.findIndex((item) => item.pathKey === selected);
  const { fetchNextPage } = files.query;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const openFile = useCallback(
    (pathKey: string) => {
      select(pathKey);
      setTab("changes");
    },
    [select],
  );
  const filesError = files.query.error ? describeError(files.query.error).message : null;
  return (
    <div className={wideClass}>
      <ReviewHeader summary={summary} />
      <TestSteeringWarning items={summary.testSteering} />
      <div className="grid gap-4 lg:h-[calc(100vh-14rem)] lg:min-h-[32rem] lg:grid-cols-[18rem_minmax(0,1fr)]">
        <aside className="flex max-h-[50vh] min-h-0 flex-col gap-2 lg:max-h-none" aria-label="Files">
          {files.query.isPending ? <p className="text-sm text-muted">Loading the changed files…</p> : null}
          {filesError ? <ErrorMessage>Could not list the changes: {filesError}</ErrorMessage> : null}
          {files.query.data ? (
            <FileTree
              visible={treeItems}
              pending={treeItems !== visible}
              loaded={files.items.length}
              total={files.total}
              filter={filter}
              onFilter={setFilter}
              selected={selected}
              onSelect={openFile}
              hasMore={files.query.hasNextPage}
              loadingMore={files.query.isFetchingNextPage}
              onLoadMore={loadMore}
            />
          ) : null}
          <NotInDiff files={files} />
          <details className="text-xs text-muted">
            <summary className="cursor-pointer">Legend</summary>
            <ChangeKindLegend />
          </details>
        </aside>
        <div className="flex h-[80vh] min-h-[28rem] flex-col rounded-lg border border-line bg-panel lg:h-auto lg:min-h-0">
          <ReviewTabs tab={tab} onTab={setTab}>
            {tab === "changes" ? (
              <ChangesPane
                trialId={trialId}
                files={visible}
                opened={files.opened}
                selectedIndex={selectedIndex}
                onSelectIndex={(index) => select(visible[index]?.pathKey ?? null)}
                active
                emptyMessage={emptyMessage({ summary, files, filter })}
              />
            ) : tab === "transcript" ? (
              <TranscriptPanel trialId={trialId} attempts={summary.attempt} />
            ) : (
              <TestsPanel studyId={studyId} trialId={trialId} />
            )}
          </ReviewTabs>
        </div>
      </div>
    </div>
  );
}

/** What the workspace holds that the diff leaves out: special files, and new paths behind ignore rules (not evaluated either). */
function NotInDiff({ files }: { files: ReturnType<typeof useReviewFiles> }) {
  const { leftOut: paths, leftOutTotal: total } = files;
  return (
    <>
      {files.skipped.length > 0 ? (
        <p className="text-xs text-muted">
          {files.skipped.length} special file(s) (FIFOs, sockets, devices) are not part of the diff.
        </p>
      ) : null}
      {total > 0 ? <LeftOutList paths={paths} total={total} /> : null}
    </>
  );
}

function LeftOutList({ paths, total }: { paths: readonly { path: string; pathKey: string }[]; total: number }) {
  return (
    <details className="text-xs text-muted" data-testid="left-out">
      <summary className="cursor-pointer">
        {total} new path{total === 1 ? "" : "s"} left out by ignore rules (not in the diff, not evaluated)
      </summary>
      <ul className="mt-1 grid gap-0.5">
        {paths.map((item) => (
          <li key={item.pathKey} className="font-mono break-all">
            {item.path}
          </li>
        ))}
        {total > paths.length ? <li>… and {total - paths.length} more</li> : null}
      </ul>
    </details>
  );
}

function emptyMessage({
  summary,
  files,
  filter,
}: {
  summary: ReviewSummaryView;
  files: ReturnType<typeof useReviewFiles>;
  filter: string;
}): string | null {
  if (files.query.isPending) return null; // still loading: no verdict on emptiness yet
  if (!summary.workspaceId) return "The trial has no workspace yet: its changes appear once its agent has started.";
  if (files.query.error) return "The changed files could not be listed (see the message on the left).";
  if (files.total === 0)
    return summary.live ? "The agent has not changed any file yet." : "This trial changed no files.";
  return filter ? "No changed file matches the filter." : "Choose a file on the left.";
}
