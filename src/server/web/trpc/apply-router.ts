import {
  appliedTrialsInputSchema,
  applyHistoryInputSchema,
  applyRunInputSchema,
  applyTrialInputSchema,
  applyTrialRunInputSchema,
  applyUndoInputSchema,
  workspaceIdInputSchema,
} from "../../../shared/snapshot-schemas";
import { procedure, router } from "./init";

export const applyRouter = router({
  preview: procedure.input(workspaceIdInputSchema).query(({ ctx, input }) => ctx.services.apply.preview(input)),
  run: procedure
    .input(applyRunInputSchema)
    .mutation(({ ctx, input }) => ctx.services.apply.run({ ...input, appliedBy: ctx.identity.subject })),
  previewTrial: procedure
    .input(applyTrialInputSchema)
    .query(({ ctx, input }) => ctx.services.apply.previewTrial(input)),
  runTrial: procedure
    .input(applyTrialRunInputSchema)
    .mutation(({ ctx, input }) => ctx.services.apply.runTrial({ ...input, appliedBy: ctx.identity.subject })),
  undo: procedure
    .input(applyUndoInputSchema)
    .mutation(({ ctx, input }) => ctx.services.apply.undo({ ...input, undoneBy: ctx.identity.subject })),
  appliedTrials: procedure
    .input(appliedTrialsInputSchema)
    .query(({ ctx, input }) => ctx.services.apply.appliedTrials(input)),
  history: procedure.input(applyHistoryInputSchema).query(({ ctx, input }) => ctx.services.apply.history(input)),
});
