import { z } from "zod";
import { procedure, router } from "./init";

const projectInput = z.object({ projectId: z.string().min(1) });
const versionInput = z.object({ versionId: z.string().min(1) });

export const environmentsRouter = router({
  overview: procedure
    .input(projectInput)
    .query(({ ctx, input }) => ctx.services.environments.overview(input.projectId)),
  log: procedure.input(versionInput).query(({ ctx, input }) => ctx.services.environments.log(input.versionId)),
  prepare: procedure
    .input(projectInput)
    .mutation(({ ctx, input }) => ctx.services.environments.prepare(input.projectId)),
  prepareWithCommand: procedure
    .input(
      projectInput.extend({
        command: z
          .string()
          .trim()
          .min(1, "Enter a command to run, for example: apt-get install -y ripgrep")
          .max(10_000, "Commands are at most 10,000 characters."),
        /** The command runs with network (default), whatever the project's network mode for agents. */
        network: z.boolean().default(true),
      }),
    )
    .mutation(({ ctx, input }) =>
      ctx.services.environments.prepareWithCommand(input.projectId, input.command, input.network),
    ),
  /** The project's devcontainer.json: none, usable (what it gives), or refused (each reason). */
  devcontainer: procedure
    .input(projectInput)
    .query(({ ctx, input }) => ctx.services.environments.devcontainerStatus(input.projectId)),
  prepareFromDevcontainer: procedure
    .input(
      z.strictObject({
        projectId: z.string().min(1),
        /** Its lifecycle commands run with network (default), as a prepare command's do. */
        network: z.boolean().default(true),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.environments.prepareFromDevcontainer(input.projectId, input.network)),
  activate: procedure
    .input(versionInput)
    .mutation(({ ctx, input }) => ctx.services.environments.activate(input.versionId)),
  remove: procedure.input(versionInput).mutation(({ ctx, input }) => ctx.services.environments.remove(input.versionId)),
});
