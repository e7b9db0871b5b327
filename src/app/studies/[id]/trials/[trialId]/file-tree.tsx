"use client";
import { memo, useEffect, useMemo, useRef } from "react";
import type { ReviewFileItem } from "../../../../../shared/review-schemas";
import { focusRing, inputClass, smallButtonClass } from "../../../../_components/ui";
import { ChangeKindBadge, LineCounts } from "../../_review/change-kind";

interface FolderGroup {
  folder: string;
  files: ReviewFileItem[];
}

/** Files grouped by their folder, in the order they come (the server sorts by path). */
export function groupByFolder(items: readonly ReviewFileItem[]): FolderGroup[] {
  const groups = new Map<string, ReviewFileItem[]>();
  for (const item of items) {
    const slash = item.path.lastIndexOf("/");
    const folder = slash < 0 ? "" : item.path.slice(0, slash);
    const list = groups.get(folder);
    if (list) list.push(item);
    else groups.set(folder, [item]);
  }
  return [...groups].map(([folder, files]) => ({ folder, files }));
}

export interface FileTreeProps {
  /** The loaded files that pass the filter. */
  visible: readonly ReviewFileItem[];
  /** `visible` is about to change (a deferred render is on its way): no "nothing matches" meanwhile. */
  pending: boolean;
  loaded: number;
  total: number;
  filter: string;
  onFilter: (filter: string) => void;
  selected: string | null;
  onSelect: (pathKey: string) => void;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
}

/**
 * The trial's changed files by folder, each with its kind and +/− counts; a filter box; more pages load
 * when the end of the list scrolls into view (or with "Load more").
 */
export function FileTree(props: FileTreeProps) {
  const { visible, pending, selected, onSelect, hasMore, loadingMore, onLoadMore } = props;
  const groups = useMemo(() => groupByFolder(visible), [visible]);
  const scroller = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = sentinel.current;
    if (!target || !hasMore) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && !loadingMore) onLoadMore();
      },
      { root: scroller.current, rootMargin: "200px" },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasMore, loadingMore, onLoadMore]);
  const listed = visible.length > 0;
  useEffect(() => {
    if (!selected || !listed) return;
    scroller.current?.querySelector(`[data-path-key="${selected}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected, listed]);
  return (
    <div className="flex min-h-0 flex-col gap-2">
      <FilterBox {...props} />
      <div ref={scroller} className="min-h-0 flex-1 overflow-auto rounded-md border border-line bg-canvas/40 py-1">
        {visible.length === 0 && !pending ? (
          <p className="px-3 py-2 text-sm text-muted">No file matches the filter.</p>
        ) : null}
        <ul aria-label="Changed files" className="text-sm">
          {groups.map((group) => (
            <li key={group.folder}>
              <p className="truncate px-3 pb-0.5 pt-2 font-mono text-[11px] text-muted" title={group.folder || "/"}>
                {group.folder ? `${group.folder}/` : "(top level)"}
              </p>
              <ul>
                {group.files.map((file) => (
                  <FileEntry key={file.pathKey} file={file} selected={file.pathKey === selected} onSelect={onSelect} />
                ))}
              </ul>
            </li>
          ))}
        </ul>
        <div ref={sentinel} />
        {hasMore ? (
          <div className="px-3 py-2">
            <button type="button" className={smallButtonClass} onClick={onLoadMore} disabled={loadingMore}>
              {loadingMore ? "Loading…" : "Load more"}
            </button>
          </div>
        ) : null}
      </div>
    </div>
  );
}

function FilterBox({ filter, onFilter, visible, loaded, total }: FileTreeProps) {
  return (
    <div>
      <label className="sr-only" htmlFor="changed-files-filter">
        Filter changed files
      </label>
      <input
        id="changed-files-filter"
        type="search"
        className={`${inputClass} py-1.5`}
        placeholder="Filter files…"
        value={filter}
        onChange={(event) => onFilter(event.target.value)}
      />
      <p className="mt-1 text-xs text-muted" data-testid="changed-files-count">
        {filter ? `${visible.length} of ` : ""}
        {loaded < total ? `${loaded} loaded of ${total}` : `${total}`} file{total === 1 ? "" : "s"}
      </p>
    </div>
  );
}

/**
 * One file of the tree; memoised so moving the selection re-renders two entries, not all of them. Rows
 * out of view skip style, layout and paint (`content-visibility: auto`, at a row's height until drawn
 * once): every restyle of the page, such as Monaco adding its style sheets, then costs the rows on
 * screen, not all 500; they stay in the DOM, so find-in-page, screen readers and tests still see them.
 */
const FileEntry = memo(function FileEntry({
  file,
  selected,
  onSelect,
}: {
  file: ReviewFileItem;
  selected: boolean;
  onSelect: (pathKey: string) => void;
}) {
  const name = file.path.slice(file.path.lastIndexOf("/") + 1);
  return (
    <li className="[contain-intrinsic-size:auto_28px] [content-visibility:auto]">
      <button
        type="button"
        data-testid="changed-file"
        data-path={file.path}
        data-path-key={file.pathKey}
        aria-current={selected ? "true" : undefined}
        title={file.path}
        onClick={() => onSelect(file.pathKey)}
        className={`flex w-full items-center gap-2 px-3 py-1 text-left hover:bg-line/40 ${selected ? "bg-line/70" : ""} ${focusRing} focus-visible:-outline-offset-2`}
      >
        <ChangeKindBadge kind={file.kind} />
        <span className="min-w-0 flex-1 truncate font-mono text-xs">{name}</span>
        <LineCounts insertions={file.insertions} deletions={file.deletions} />
      </button>
    </li>
  );
});
