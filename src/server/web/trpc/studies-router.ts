import {
  chooseTrialInputSchema,
  createStudyInputSchema,
  listStudiesInputSchema,
  projectFilesInputSchema,
  rerunInputSchema,
  retryTrialsInputSchema,
  studyDefaultsInputSchema,
  studyIdInputSchema,
  trialIdInputSchema,
  trialLogInputSchema,
} from "../../../shared/study-inputs";
import { modelPriceSchema, resetPriceInputSchema } from "../../../shared/model-prices";
import { addRepeatsInputSchema } from "../../../shared/study-repeats";
import { continueWithFeedbackInputSchema } from "../../../shared/review-comment-schemas";
import { procedure, router } from "./init";

export const studiesRouter = router({
  list: procedure.input(listStudiesInputSchema).query(({ ctx, input }) => ctx.services.studies.list(input)),
  get: procedure.input(studyIdInputSchema).query(({ ctx, input }) => ctx.services.studies.get(input.studyId)),
  defaults: procedure
    .input(studyDefaultsInputSchema)
    .query(({ ctx, input }) => ctx.services.studies.defaults(input.projectId)),
  projectFiles: procedure
    .input(projectFilesInputSchema)
    .query(({ ctx, input }) => ctx.services.studies.projectFiles(input)),
  trialLog: procedure.input(trialLogInputSchema).query(async ({ ctx, input }) => {
    const { text, truncated } = await ctx.services.studies.trialLog(input);
    return { text, truncated };
  }),
  trialTests: procedure
    .input(trialIdInputSchema)
    .query(({ ctx, input }) => ctx.services.studies.trialTests(input.trialId)),
  testMatrix: procedure
    .input(studyIdInputSchema)
    .query(({ ctx, input }) => ctx.services.studies.testMatrix(input.studyId)),
  create: procedure
    .input(createStudyInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.create(input, ctx.identity.subject)),
  stop: procedure
    .input(studyIdInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.stop(input.studyId, ctx.identity.subject)),
  remove: procedure
    .input(studyIdInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.remove(input.studyId, ctx.identity.subject)),
  retry: procedure
    .input(retryTrialsInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.retry(input, ctx.identity.subject)),
  addRepeats: procedure
    .input(addRepeatsInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.addRepeats(input, ctx.identity.subject)),
  continueWithFeedback: procedure
    .input(continueWithFeedbackInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.continueWithFeedback(input, ctx.identity.subject)),
  rerun: procedure
    .input(rerunInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.rerun(input, ctx.identity.subject)),
  prices: procedure.query(({ ctx }) => ctx.services.studies.prices()),
  setPrice: procedure
    .input(modelPriceSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.setPrice(input, ctx.identity.subject)),
  resetPrice: procedure
    .input(resetPriceInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.resetPrice(input.model, ctx.identity.subject)),
  choose: procedure
    .input(chooseTrialInputSchema)
    .mutation(({ ctx, input }) => ctx.services.studies.choose(input, ctx.identity.subject)),
});
