import { z } from "zod";
import { setDependencyStepInputSchema } from "../../../shared/dependency-schemas";
import { procedure, router } from "./init";

const projectInput = z.object({ projectId: z.string().min(1) });

export const dependenciesRouter = router({
  status: procedure.input(projectInput).query(({ ctx, input }) => ctx.services.dependencies.status(input.projectId)),
  setStep: procedure
    .input(setDependencyStepInputSchema)
    .mutation(({ ctx, input }) => ctx.services.dependencies.setStep(input)),
  install: procedure
    .input(projectInput)
    .mutation(({ ctx, input }) => ctx.services.dependencies.install(input.projectId)),
});
