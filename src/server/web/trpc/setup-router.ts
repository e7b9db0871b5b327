import { z } from "zod";
import { procedure, router } from "./init";
import { MODEL_PROVIDERS } from "../../../shared/harness-kinds";

const providerInput = z
  .enum(MODEL_PROVIDERS, { error: `provider must be one of ${MODEL_PROVIDERS.join(", ")}` })
  .default("openai");

/**
 * The setup checklist and model access. The key goes in once and never comes back: no procedure
 * returns it (viewers read the checklist; storing and removing are mutations, which viewers cannot make).
 */
export const setupRouter = router({
  status: procedure.query(({ ctx }) => ctx.services.setup.status()),
  /** `provider` defaults to OpenAI (the only one before Claude Code and Gemini CLI). */
  storeApiKey: procedure
    .input(
      z.strictObject({
        apiKey: z.string().max(10_000, "That is longer than any API key; paste the key alone."),
        provider: providerInput,
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.setup.storeApiKey(input.apiKey, input.provider)),
  /** Names its provider (a removal is never guessed: an empty or unknown input is refused, nothing removed). */
  removeApiKey: procedure
    .input(
      z.strictObject({
        provider: z.enum(MODEL_PROVIDERS, { error: `provider must be one of ${MODEL_PROVIDERS.join(", ")}` }),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.setup.removeApiKey(input.provider)),
  /** Builds the base image with scripts/base-image.mjs (admin); `baseImageBuild` follows its output. */
  buildBaseImage: procedure.mutation(({ ctx }) => ctx.services.setup.buildBaseImage()),
  baseImageBuild: procedure.query(({ ctx }) => ctx.services.setup.baseImageBuild()),
});
