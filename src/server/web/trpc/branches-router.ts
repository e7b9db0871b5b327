import {
  branchCreateInputSchema,
  branchListInputSchema,
  branchPreviewInputSchema,
  branchRemoveInputSchema,
} from "../../../shared/branch-schemas";
import { procedure, router } from "./init";

/** Apply as a branch (branch-service.ts): what it would make, make it (and push), the list, remove one. */
export const branchesRouter = router({
  preview: procedure.input(branchPreviewInputSchema).query(({ ctx, input }) => ctx.services.branches.preview(input)),
  create: procedure
    .input(branchCreateInputSchema)
    .mutation(({ ctx, input }) => ctx.services.branches.create({ ...input, createdBy: ctx.identity.subject })),
  list: procedure.input(branchListInputSchema).query(({ ctx, input }) => ctx.services.branches.list(input)),
  remove: procedure
    .input(branchRemoveInputSchema)
    .mutation(({ ctx, input }) => ctx.services.branches.remove({ ...input, removedBy: ctx.identity.subject })),
});
