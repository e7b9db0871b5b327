"use client";
import { QueryState } from "../../../../_components/query-state";
import { ErrorMessage } from "../../../../_components/ui";
import { describeError } from "../../../../_lib/errors";
import { CommentForm, CommentItem } from "./comment-items";
import type { ReviewComments } from "./use-review-comments";

/**
 * The Comments tab: every review comment of the trial (on lines of a file, with a jump to them, or on the whole
 * trial), and for admins a comment on the whole trial. Viewers read them.
 */
export function CommentsPanel({ comments }: { comments: ReviewComments }) {
  const removeError = comments.remove.error;
  return (
    <div className="grid max-w-3xl gap-4" data-testid="comments-panel">
      {comments.canWrite ? (
        <section aria-label="Comment on the whole trial" className="grid gap-2">
          <h2 className="text-sm font-medium">Comment on the whole trial</h2>
          <CommentForm comments={comments} place="the whole trial" target={null} />
        </section>
      ) : null}
      {removeError ? <ErrorMessage>{describeError(removeError).message}</ErrorMessage> : null}
      <QueryState query={comments.query} loading="Loading the comments…" errorPrefix="Could not load the comments">
        {() =>
          comments.comments.length === 0 ? (
            <p className="text-sm text-muted">
              No comments yet.
              {comments.canWrite
                ? " Comment on the whole trial here, or on lines in the Changes tab (click a line number in the trial's side)."
                : ""}
            </p>
          ) : (
            <ul className="grid gap-2" aria-label="Review comments">
              {comments.comments.map((comment) => (
                <CommentItem key={comment.id} comment={comment} comments={comments} showPath />
              ))}
            </ul>
          )
        }
      </QueryState>
    </div>
  );
}
