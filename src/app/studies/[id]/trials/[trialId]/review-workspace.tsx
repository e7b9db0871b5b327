"use client";
import {
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import type { ReviewFileItem } from "../../../../../shared/review-schemas";
import { ErrorMessage } from "../../../../_components/ui";
import { describeError } from "../../../../_lib/errors";
import { ChangeKindLegend } from "../../_review/change-kind";
import { ChangesPane } from "./changes-pane";
import { FileTree } from "./file-tree";
import type { CommentReveal, ReviewComments } from "./use-review-comments";
import { useReviewFiles, type ReviewScope } from "./use-review-files";
import { useSelectedFile } from "./use-selected-file";

const NO_FILES: readonly ReviewFileItem[] = [];

export type ReviewFiles = ReturnType<typeof useReviewFiles>;

/**
 * The changed files beside the selected file's diff: the body of a trial's review and of a private-copy
 * session's. `frame` puts the diff pane among other panels (a trial's Transcript and Tests tabs); `active`
 * says whether the pane shows (its keys work only then), and `onOpenFile` hears a file chosen in the tree.
 */
export function ReviewWorkspace({
  subject,
  opened,
  emptyMessage,
  active = true,
  onOpenFile,
  frame = (changes) => changes,
  comments,
  toolbarExtra,
}: {
  subject: ReviewScope;
  opened: string | true;
  /** Why no file is shown (null while the list loads), from the files and the filter. */
  emptyMessage: (files: ReviewFiles, filter: string) => string | null;
  active?: boolean;
  onOpenFile?: () => void;
  frame?: (changes: ReactNode) => ReactNode;
  /** A trial's review comments; choosing one in a list selects its file here. */
  comments?: ReviewComments;
  toolbarExtra?: ReactNode;
}) {
  const files = useReviewFiles(subject, opened);
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
  const [selected, select] = useSelectedFile(visible);
  const selectedIndex = visible.findIndex((item) => item.pathKey === selected);
  const { fetchNextPage } = files.query;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const openFile = useCallback(
    (pathKey: string) => {
      select(pathKey);
      onOpenFile?.();
    },
    [select, onOpenFile],
  );
  useRevealedFile(comments?.reveal ?? null, visible, openFile);
  return (
    <div className="grid gap-4 lg:h-[calc(100vh-14rem)] lg:min-h-[32rem] lg:grid-cols-[18rem_minmax(0,1fr)]">
      <FilesAside
        files={files}
        treeItems={treeItems}
        pending={treeItems !== visible}
        filter={filter}
        onFilter={setFilter}
        selected={selected}
        onSelect={openFile}
        onLoadMore={loadMore}
      />
      <div className="flex h-[80vh] min-h-[28rem] flex-col rounded-lg border border-line bg-panel lg:h-auto lg:min-h-0">
        {frame(
          <ChangesPane
            subject={subject}
            files={visible}
            opened={files.opened}
            selectedIndex={selectedIndex}
            onSelectIndex={(index) => select(visible[index]?.pathKey ?? null)}
            active={active}
            emptyMessage={emptyMessage(files, filter)}
            comments={comments}
            toolbarExtra={toolbarExtra}
          />,
        )}
      </div>
    </div>
  );
}

/** The changed files' tree (with its filter and the load of more), what the diff leaves out, and the legend. */
function FilesAside({
  files,
  treeItems,
  pending,
  filter,
  onFilter,
  selected,
  onSelect,
  onLoadMore,
}: {
  files: ReviewFiles;
  treeItems: readonly ReviewFileItem[];
  pending: boolean;
  filter: string;
  onFilter: (filter: string) => void;
  selected: string | null;
  onSelect: (pathKey: string) => void;
  onLoadMore: () => void;
}) {
  const filesError = files.query.error ? describeError(files.query.error).message : null;
  return (
    <aside className="flex max-h-[50vh] min-h-0 flex-col gap-2 lg:max-h-none" aria-label="Files">
      {files.query.isPending ? <p className="text-sm text-muted">Loading the changed files…</p> : null}
      {filesError ? <ErrorMessage>Could not list the changes: {filesError}</ErrorMessage> : null}
      {files.query.data ? (
        <FileTree
          visible={treeItems}
          pending={pending}
          loaded={files.items.length}
          total={files.total}
          filter={filter}
          onFilter={onFilter}
          selected={selected}
          onSelect={onSelect}
          hasMore={files.query.hasNextPage}
          loadingMore={files.query.isFetchingNextPage}
          onLoadMore={onLoadMore}
        />
      ) : null}
      <NotInDiff files={files} />
      <details className="text-xs text-muted">
        <summary className="cursor-pointer">Legend</summary>
        <ChangeKindLegend />
      </details>
    </aside>
  );
}

/** Selects the file of a comment chosen in a list (only a new choice moves the selection, not a change of the list). */
function useRevealedFile(
  reveal: CommentReveal | null,
  visible: readonly ReviewFileItem[],
  openFile: (pathKey: string) => void,
) {
  const latest = useRef({ visible, openFile });
  useLayoutEffect(() => {
    latest.current = { visible, openFile };
  });
  useEffect(() => {
    if (!reveal) return;
    const item = latest.current.visible.find((candidate) => candidate.path === reveal.path);
    if (item) latest.current.openFile(item.pathKey);
  }, [reveal]);
}

/** What the workspace holds that the diff leaves out: special files, and new paths behind ignore rules (not evaluated either). */
function NotInDiff({ files }: { files: ReviewFiles }) {
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
