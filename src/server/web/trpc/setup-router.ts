import { z } from "zod";
import { procedure, router } from "./init";

/**
 * The setup checklist and model access. The key goes in once and never comes back: no procedure
 * returns it (viewers read the checklist; storing and removing are mutations, which viewers cannot make).
 */
export const setupRouter = router({
  status: procedure.query(({ ctx }) => ctx.services.setup.status()),
  storeApiKey: procedure
    .input(z.object({ apiKey: z.string().max(10_000, "That is longer than any API key; paste the key alone.") }))
    .mutation(({ ctx, input }) => ctx.services.setup.storeApiKey(input.apiKey)),
  removeApiKey: procedure.mutation(({ ctx }) => ctx.services.setup.removeApiKey()),
  /** Builds the base image with scripts/base-image.mjs (admin); `baseImageBuild` follows its output. */
  buildBaseImage: procedure.mutation(({ ctx }) => ctx.services.setup.buildBaseImage()),
  baseImageBuild: procedure.query(({ ctx }) => ctx.services.setup.baseImageBuild()),
});
