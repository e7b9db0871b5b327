import { z } from "zod";
import { verdictSchema } from "../shared/verdict-summary";
import { trialStateSchema } from "../shared/vocabulary";
import { isoDate } from "../shared/zod-fields";

/** What `trial comment`, `trial comments` and `trial follow-up` print with --json (cli-schemas.ts lists them). */
export const reviewCommentOutputSchema = z.object({
  id: z.string(),
  trialId: z.string(),
  path: z.string().nullable(),
  startLine: z.int().nullable(),
  endLine: z.int().nullable(),
  body: z.string(),
  author: z.string(),
  createdAt: isoDate,
  sentInTrial: z.string().nullable(),
});

export const feedbackCliSchemas = {
  "trial comment": reviewCommentOutputSchema,
  "trial comments": z.object({ trialId: z.string(), comments: z.array(reviewCommentOutputSchema) }),
  "trial follow-up": z.object({
    studyId: z.string(),
    trials: z.array(
      z.object({
        id: z.string(),
        parentTrialId: z.string(),
        /** "Trial 1.2.1". */
        name: z.string(),
        state: trialStateSchema,
        verdict: verdictSchema.nullable(),
      }),
    ),
  }),
};
