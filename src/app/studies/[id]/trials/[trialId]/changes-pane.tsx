"use client";
import { useRef, useState, type ReactNode } from "react";
import type { editor } from "monaco-editor";
import type { ReviewFileItem, ReviewFileView } from "../../../../../shared/review-schemas";
import type { DiffNavigator } from "../../../../_components/diff-editor";
import { EmptyState } from "../../../../_components/ui";
import { DiffToggles, toolbarButtonClass, useDiffView } from "../../_review/diff-toggles";
import { DiffCommentsBar, useDiffComments } from "./diff-comments";
import { FileDiff } from "./file-diff";
import type { ReviewComments } from "./use-review-comments";
import type { ReviewScope } from "./use-review-files";
import { useReviewKeys } from "./use-review-keys";

/** The selected file's diff under a toolbar: previous/next file and change, Inline, Wrap, and the keys. */
export function ChangesPane({
  subject,
  files,
  opened,
  selectedIndex,
  onSelectIndex,
  active,
  emptyMessage,
  comments,
  toolbarExtra,
}: {
  /** Whose changes: a trial's, or a private-copy session's. */
  subject: ReviewScope;
  /** The files in the tree's order (after the filter). */
  files: readonly ReviewFileItem[];
  /** The diff the file list came with (the file opened first), if any. */
  opened: ReviewFileView | null;
  selectedIndex: number;
  onSelectIndex: (index: number) => void;
  /** The Changes tab is showing (the keys work only then). */
  active: boolean;
  /** Why no file is shown; null while the list is still loading. */
  emptyMessage: string | null;
  /** A trial's review comments (marked on the diff, written under it); a session's review has none. */
  comments?: ReviewComments;
  /** More toolbar controls (a follow-up's "against parent / snapshot"). */
  toolbarExtra?: ReactNode;
}) {
  const [view, setView] = useDiffView();
  const navigator = useRef<DiffNavigator | null>(null);
  const file = files[selectedIndex] ?? null;
  const [diffEditor, setDiffEditor] = useState<editor.IStandaloneDiffEditor | null>(null);
  const commentLayer = useDiffComments(diffEditor, file?.path ?? "", comments);
  const moveFile = (delta: 1 | -1) => {
    const next = selectedIndex + delta;
    if (next >= 0 && next < files.length) onSelectIndex(next);
  };
  const moveChange = (direction: "next" | "previous") => navigator.current?.goToChange(direction);
  useReviewKeys({ moveFile, moveChange }, active && files.length > 0);
  if (!file)
    return emptyMessage === null ? (
      <p className="p-4 text-sm text-muted">Loading the changed files…</p>
    ) : (
      <EmptyState title="No file to show">{emptyMessage}</EmptyState>
    );
  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex flex-wrap items-center gap-2 border-b border-line px-3 py-2">
        <h2 className="mr-auto min-w-0 truncate font-mono text-sm" title={file.path} data-testid="diff-path">
          {file.path}
        </h2>
        <MoveButtons
          onFile={moveFile}
          onChange={moveChange}
          first={selectedIndex <= 0}
          last={selectedIndex >= files.length - 1}
        />
        {toolbarExtra}
        <DiffToggles view={view} onChange={setView} />
      </div>
      <div className="min-h-0 flex-1">
        <FileDiff
          subject={subject}
          file={file}
          initial={opened?.pathKey === file.pathKey ? opened : null}
          next={files[selectedIndex + 1] ?? null}
          view={view}
          onNavigator={(next) => {
            navigator.current = next;
          }}
          onEditor={setDiffEditor}
        />
      </div>
      {comments ? <DiffCommentsBar path={file.path} comments={comments} layer={commentLayer} /> : null}
      <Shortcuts />
    </div>
  );
}

/** Previous/next file and change. */
function MoveButtons({
  onFile,
  onChange,
  first,
  last,
}: {
  onFile: (delta: 1 | -1) => void;
  onChange: (direction: "next" | "previous") => void;
  first: boolean;
  last: boolean;
}) {
  return (
    <div className="flex items-center gap-1" role="group" aria-label="Move between files and changes">
      <button type="button" className={toolbarButtonClass} onClick={() => onFile(-1)} disabled={first}>
        ↑ Previous file
      </button>
      <button type="button" className={toolbarButtonClass} onClick={() => onFile(1)} disabled={last}>
        ↓ Next file
      </button>
      <button type="button" className={toolbarButtonClass} onClick={() => onChange("previous")}>
        Previous change
      </button>
      <button type="button" className={toolbarButtonClass} onClick={() => onChange("next")}>
        Next change
      </button>
    </div>
  );
}

function Shortcuts() {
  const key = "rounded border border-line px-1 font-mono text-[10px] text-ink";
  return (
    <p className="border-t border-line px-3 py-1.5 text-[11px] text-muted" data-testid="review-shortcuts">
      Keys: <kbd className={key}>j</kbd>/<kbd className={key}>k</kbd> or <kbd className={key}>Alt ↓</kbd>/
      <kbd className={key}>Alt ↑</kbd> next/previous file · <kbd className={key}>n</kbd>/<kbd className={key}>p</kbd>{" "}
      next/previous change · in the editor, <kbd className={key}>F7</kbd>/<kbd className={key}>Shift F7</kbd> go through
      the changes in Monaco&apos;s accessible diff viewer
    </p>
  );
}
