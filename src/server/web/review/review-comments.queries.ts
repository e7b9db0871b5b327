import type { Db } from "../../core/db/client";
import type { ReviewCommentView } from "../../../shared/review-comment-schemas";
import { commentView } from "../studies/review-comment-view";

/** Review comments as plain views (oldest first); the only module that touches their table, follow-ups aside. */
export function createReviewCommentQueries(db: Db) {
  return {
    async list(trialId: string): Promise<ReviewCommentView[]> {
      const rows = await db.reviewComment.findMany({
        where: { trialId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      return rows.map(commentView);
    },

    async find(commentId: string): Promise<ReviewCommentView | null> {
      const row = await db.reviewComment.findUnique({ where: { id: commentId } });
      return row ? commentView(row) : null;
    },

    async add(input: {
      trialId: string;
      path: string | null;
      startLine: number | null;
      endLine: number | null;
      body: string;
      author: string;
      now: Date;
    }): Promise<ReviewCommentView> {
      const { now, ...data } = input;
      return commentView(await db.reviewComment.create({ data: { ...data, createdAt: now } }));
    },

    /** Removes a comment not yet sent to the agent; false when it was sent (or is gone) meanwhile. */
    async removeUnsent(commentId: string): Promise<boolean> {
      const { count } = await db.reviewComment.deleteMany({ where: { id: commentId, sentInTrial: null } });
      return count > 0;
    },
  };
}

export type ReviewCommentQueries = ReturnType<typeof createReviewCommentQueries>;
