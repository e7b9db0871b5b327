"use client";
import { useCallback, useEffect, useState } from "react";
import type { editor, IDisposable } from "monaco-editor";
import { ErrorMessage, smallButtonClass } from "../../../../_components/ui";
import { describeError } from "../../../../_lib/errors";
import { CommentForm, CommentItem } from "./comment-items";
import { linesText, type LineRange, type ReviewComments } from "./use-review-comments";

// Monaco's MouseTargetType values for the gutter (the enum is a runtime import this file need not load)
const GUTTER_GLYPH_MARGIN = 2;
const GUTTER_LINE_NUMBERS = 3;

/**
 * The review comments of one file on its diff: the trial's (modified) side marks the lines comments are on,
 * follows the selected lines (a line-number click selects a line, Shift+click a range, and opens the form),
 * and brings a comment's lines into view when it is chosen in a list.
 */
export function useDiffComments(
  diffEditor: editor.IStandaloneDiffEditor | null,
  path: string,
  comments: ReviewComments | undefined,
) {
  // kept with the file they were made on: another file starts with neither
  const [selected, setSelected] = useState<{ path: string; range: LineRange | null } | null>(null);
  const [drafted, setDrafted] = useState<{ path: string; range: LineRange } | null>(null);
  const selection = selected?.path === path ? selected.range : null;
  const draft = drafted?.path === path ? drafted.range : null;
  const setDraft = useCallback((range: LineRange | null) => setDrafted(range ? { path, range } : null), [path]);
  // the editor swaps a file's text into the same model: the marks are set again after each swap
  const [textVersion, setTextVersion] = useState(0);
  const onFile = comments?.comments.filter((comment) => comment.path === path && comment.startLine !== null) ?? [];
  const canWrite = comments?.canWrite ?? false;
  useEffect(() => {
    if (!diffEditor) return;
    const modified = diffEditor.getModifiedEditor();
    const read = (): LineRange | null => {
      const range = modified.getSelection();
      if (!range) return null;
      // a selection ending at column 1 of the next line (a line-number click) is about the lines above it
      const endLine =
        range.endColumn === 1 && range.endLineNumber > range.startLineNumber
          ? range.endLineNumber - 1
          : range.endLineNumber;
      return { startLine: range.startLineNumber, endLine };
    };
    const listeners: IDisposable[] = [
      modified.onDidChangeCursorSelection(() => setSelected({ path, range: read() })),
      modified.onDidChangeModelContent(() => setTextVersion((version) => version + 1)),
      modified.onDidChangeModel(() => setTextVersion((version) => version + 1)),
      modified.onMouseUp((event) => {
        const type: number = event.target.type;
        const range = read();
        if (canWrite && range && (type === GUTTER_LINE_NUMBERS || type === GUTTER_GLYPH_MARGIN))
          setDrafted({ path, range });
      }),
    ];
    return () => listeners.forEach((listener) => listener.dispose());
  }, [diffEditor, canWrite, path]);
  const marks = onFile.map((comment) => `${comment.id}:${comment.startLine}-${comment.endLine}`).join(",");
  useEffect(() => {
    if (!diffEditor) return;
    const modified = diffEditor.getModifiedEditor();
    const collection = modified.createDecorationsCollection(
      onFile.map((comment) => ({
        range: {
          startLineNumber: comment.startLine!,
          startColumn: 1,
          endLineNumber: comment.endLine ?? comment.startLine!,
          endColumn: 1,
        },
        options: {
          isWholeLine: true,
          className: "bg-accent/15",
          linesDecorationsClassName: "bg-accent",
          hoverMessage: { value: `**${comment.author}**: ${comment.body}` },
        },
      })),
    );
    return () => collection.clear();
    // the marks string stands for the comments on this file
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [diffEditor, marks, textVersion]);
  const reveal = comments?.reveal;
  useEffect(() => {
    if (!diffEditor || !reveal || reveal.path !== path) return;
    const modified = diffEditor.getModifiedEditor();
    modified.revealLineInCenter(reveal.line);
    modified.setSelection({ startLineNumber: reveal.line, startColumn: 1, endLineNumber: reveal.line, endColumn: 1 });
  }, [diffEditor, reveal, path]);
  return { selection, draft, setDraft, onFile };
}

/** Under the diff: Comment on the selected lines (admins), the form, and this file's comments with jumps to their lines. */
export function DiffCommentsBar({
  path,
  comments,
  layer,
}: {
  path: string;
  comments: ReviewComments;
  layer: ReturnType<typeof useDiffComments>;
}) {
  const { selection, draft, setDraft, onFile } = layer;
  const removeError = comments.remove.error;
  return (
    <section
      aria-label={`Comments on ${path}`}
      className="grid max-h-64 gap-2 overflow-auto border-t border-line px-3 py-2"
    >
      {comments.canWrite && !draft ? (
        <div className="flex flex-wrap items-center gap-2 text-xs text-muted">
          <button
            type="button"
            className={smallButtonClass}
            disabled={!selection}
            onClick={() => setDraft(selection)}
            data-testid="comment-on-selection"
          >
            {selection ? `Comment on ${linesText(selection)}` : "Comment on selection"}
          </button>
          <span>Click a line number in the trial&apos;s side (Shift+click for a range) to comment on those lines.</span>
        </div>
      ) : null}
      {draft ? (
        <CommentForm
          comments={comments}
          place={`${path} ${linesText(draft)}`}
          target={{ path, ...draft }}
          onDone={() => setDraft(null)}
        />
      ) : null}
      {removeError ? <ErrorMessage>{describeError(removeError).message}</ErrorMessage> : null}
      {onFile.length > 0 ? (
        <ul className="grid gap-1.5" aria-label={`Comments on ${path}`}>
          {onFile.map((comment) => (
            <CommentItem key={comment.id} comment={comment} comments={comments} showPath={false} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
