import {
  reviewCompareFileInputSchema,
  reviewCompareInputSchema,
  reviewFileInputSchema,
  reviewFilesInputSchema,
  reviewTranscriptInputSchema,
  reviewTrialInputSchema,
} from "../../../shared/review-schemas";
import { procedure, router } from "./init";

/** The trial review: queries only, so viewers may call every one. */
export const reviewRouter = router({
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
