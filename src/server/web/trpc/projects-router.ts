import { TRPCError } from "@trpc/server";
import {
  addProjectInputSchema,
  browseFoldersInputSchema,
  projectIdInputSchema,
  relinkProjectInputSchema,
  removeProjectInputSchema,
  updateProjectInputSchema,
} from "../../../shared/project-schemas";
import { procedure, router } from "./init";

export const projectsRouter = router({
  list: procedure.query(({ ctx }) => ctx.services.projects.list()),
  get: procedure.input(projectIdInputSchema).query(({ ctx, input }) => ctx.services.projects.get(input.id)),
  /** The add-project folder picker: admin only (it lists the host user's folders), inside the home directory. */
  browseFolders: procedure.input(browseFoldersInputSchema).query(({ ctx, input }) => {
    if (ctx.identity.role !== "admin")
      throw new TRPCError({ code: "FORBIDDEN", message: "Only the admin can browse this host's folders." });
    return ctx.services.setup.browseFolders(input.path);
  }),
  add: procedure.input(addProjectInputSchema).mutation(({ ctx, input }) => ctx.services.projects.add(input)),
  update: procedure.input(updateProjectInputSchema).mutation(({ ctx, input }) => ctx.services.projects.update(input)),
  /** Points a project whose folder moved at its new path (an existing folder no other project has). */
  relink: procedure.input(relinkProjectInputSchema).mutation(({ ctx, input }) => ctx.services.projects.relink(input)),
  /** Refused with the list of running sessions and studies, unless `stopRunning`: then they are ended first. */
  remove: procedure
    .input(removeProjectInputSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.remove({ ...input, by: ctx.identity.subject })),
});
