import { applyHistoryInputSchema, applyRunInputSchema, workspaceIdInputSchema } from "../../shared/snapshot-schemas";
import { procedure, router } from "./init";

export const applyRouter = router({
  preview: procedure.input(workspaceIdInputSchema).query(({ ctx, input }) => ctx.services.apply.preview(input)),
  run: procedure
    .input(applyRunInputSchema)
    .mutation(({ ctx, input }) => ctx.services.apply.run({ ...input, appliedBy: ctx.identity.subject })),
  history: procedure.input(applyHistoryInputSchema).query(({ ctx, input }) => ctx.services.apply.history(input)),
});
