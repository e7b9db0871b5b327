"use client";
import { useState, type FormEvent } from "react";
import { COMMENT_BODY_MAX } from "../../../../../shared/review-comment-schemas";
import { ErrorMessage, focusRing, inputClass, smallButtonClass } from "../../../../_components/ui";
import { describeError } from "../../../../_lib/errors";
import { formatDateTime } from "../../../study-format";
import { linesText, type ReviewCommentItem, type ReviewComments } from "./use-review-comments";

/** A comment's text box and Add comment; `place` says what it is about ("src/a.js lines 3–5", "the whole trial"). */
export function CommentForm({
  comments,
  place,
  target,
  onDone,
}: {
  comments: ReviewComments;
  place: string;
  /** Where the comment goes: a file's lines, or nothing for the whole trial. */
  target: { path: string; startLine: number; endLine: number } | null;
  /** Heard after the comment is kept or the form is cancelled; without it the form stays (the whole-trial one). */
  onDone?: () => void;
}) {
  const [body, setBody] = useState("");
  const { add } = comments;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!body.trim()) return;
    add.mutate(
      { trialId: comments.trialId, body, ...(target ?? {}) },
      {
        onSuccess: () => {
          setBody("");
          onDone?.();
        },
      },
    );
  };
  return (
    <form onSubmit={submit} aria-label={`Comment on ${place}`} className="grid gap-2" data-testid="comment-form">
      <textarea
        className={`${inputClass} min-h-20 font-sans`}
        aria-label={`Comment on ${place}`}
        placeholder="What should the agent change? It reads this when you continue with feedback."
        value={body}
        maxLength={COMMENT_BODY_MAX}
        onChange={(event) => setBody(event.target.value)}
        autoFocus={onDone !== undefined}
      />
      {add.error ? <ErrorMessage>{describeError(add.error).message}</ErrorMessage> : null}
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" className={smallButtonClass} disabled={!body.trim() || add.isPending}>
          {add.isPending ? "Adding…" : "Add comment"}
        </button>
        {onDone ? (
          <button type="button" className={smallButtonClass} onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

/** One comment: where (a jump to its lines), who and when, the text; "sent to Trial 3.2.1" once sent, else Remove. */
export function CommentItem({
  comment,
  comments,
  showPath,
}: {
  comment: ReviewCommentItem;
  comments: ReviewComments;
  showPath: boolean;
}) {
  const { remove } = comments;
  const lines = linesText(comment);
  const where = comment.path ? `${showPath ? comment.path : ""}${showPath && lines ? " " : ""}${lines}` : "";
  return (
    <li className="grid gap-1 rounded border border-line p-2 text-sm" data-testid="review-comment">
      <div className="flex flex-wrap items-baseline gap-x-2 text-xs text-muted">
        {comment.path ? (
          <button
            type="button"
            className={`font-mono text-accent hover:underline ${focusRing}`}
            onClick={() => comments.revealComment(comment.path!, comment.startLine ?? 1)}
            data-testid="comment-place"
          >
            {where || comment.path}
          </button>
        ) : (
          <span data-testid="comment-place">Whole trial</span>
        )}
        <span>
          {comment.author} · {formatDateTime(comment.createdAt)}
        </span>
        {comment.sentInTrial ? (
          <span className="text-ok-soft" data-testid="comment-sent">
            sent to {comments.sentName(comment.sentInTrial)}
          </span>
        ) : comments.canWrite ? (
          <button
            type="button"
            className={`ml-auto text-danger-soft hover:underline ${focusRing}`}
            disabled={remove.isPending}
            onClick={() => remove.mutate({ commentId: comment.id })}
            aria-label={`Remove the comment on ${where || "the whole trial"}`}
          >
            Remove
          </button>
        ) : null}
      </div>
      <p className="whitespace-pre-wrap break-words">{comment.body}</p>
    </li>
  );
}
