import type { Db } from "../../core/db/client";
import type { ReviewCommentView } from "../../../shared/review-comment-schemas";

/** A review comment row as its view (the review's comment queries and the study's follow-ups share it). */
export type CommentRow = Awaited<ReturnType<Db["reviewComment"]["findUniqueOrThrow"]>>;

export function commentView(row: CommentRow): ReviewCommentView {
  return {
    id: row.id,
    trialId: row.trialId,
    path: row.path,
    startLine: row.startLine,
    endLine: row.endLine,
    body: row.body,
    author: row.author,
    createdAt: row.createdAt.toISOString(),
    sentInTrial: row.sentInTrial,
  };
}
