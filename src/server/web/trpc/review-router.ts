import {
  reviewCompareFileInputSchema,
  reviewCompareInputSchema,
  reviewFileInputSchema,
  reviewFilesInputSchema,
  reviewTranscriptInputSchema,
  reviewTrialInputSchema,
} from "../../../shared/review-schemas";
import {
  addCommentInputSchema,
  removeCommentInputSchema,
  reviewCommentsInputSchema,
} from "../../../shared/review-comment-schemas";
import { procedure, router } from "./init";

/** The trial review: queries, which viewers may call too, and review comments (writing one needs the admin). */
export const reviewRouter = router({
  comments: procedure.input(reviewCommentsInputSchema).query(({ ctx, input }) => ctx.services.review.comments(input)),
  addComment: procedure
    .input(addCommentInputSchema)
    .mutation(({ ctx, input }) => ctx.services.review.addComment(input, ctx.identity.subject)),
  removeComment: procedure
    .input(removeCommentInputSchema)
    .mutation(({ ctx, input }) => ctx.services.review.removeComment(input)),
  summary: procedure.input(reviewTrialInputSchema).query(({ ctx, input }) => ctx.services.review.summary(input)),
  files: procedure.input(reviewFilesInputSchema).query(({ ctx, input }) => ctx.services.review.files(input)),
  file: procedure.input(reviewFileInputSchema).query(({ ctx, input }) => ctx.services.review.file(input)),
  transcript: procedure
    .input(reviewTranscriptInputSchema)
    .query(({ ctx, input }) => ctx.services.review.transcript(input)),
  compare: procedure.input(reviewCompareInputSchema).query(({ ctx, input }) => ctx.services.review.compare(input)),
  compareFile: procedure
    .input(reviewCompareFileInputSchema)
    .query(({ ctx, input }) => ctx.services.review.compareFile(input)),
});
