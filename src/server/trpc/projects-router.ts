import { addProjectInputSchema, projectIdInputSchema, updateProjectInputSchema } from "../../shared/project-schemas";
import { procedure, router } from "./init";

export const projectsRouter = router({
  list: procedure.query(({ ctx }) => ctx.services.projects.list()),
  get: procedure.input(projectIdInputSchema).query(({ ctx, input }) => ctx.services.projects.get(input.id)),
  add: procedure.input(addProjectInputSchema).mutation(({ ctx, input }) => ctx.services.projects.add(input)),
  update: procedure.input(updateProjectInputSchema).mutation(({ ctx, input }) => ctx.services.projects.update(input)),
  remove: procedure.input(projectIdInputSchema).mutation(({ ctx, input }) => ctx.services.projects.remove(input.id)),
});
