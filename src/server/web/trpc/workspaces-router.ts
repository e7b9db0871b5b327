import { snapshotIdInputSchema, workspaceIdInputSchema } from "../../../shared/snapshot-schemas";
import { procedure, router } from "./init";

export const workspacesRouter = router({
  create: procedure.input(snapshotIdInputSchema).mutation(({ ctx, input }) => ctx.services.workspaces.create(input)),
  get: procedure.input(workspaceIdInputSchema).query(({ ctx, input }) => ctx.services.workspaces.get(input)),
  remove: procedure.input(workspaceIdInputSchema).mutation(({ ctx, input }) => ctx.services.workspaces.remove(input)),
  diff: procedure.input(workspaceIdInputSchema).query(({ ctx, input }) => ctx.services.workspaces.diff(input)),
});
