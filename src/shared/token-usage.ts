import { z } from "zod";
import { count } from "./zod-fields";

/**
 * Tokens a run used, in the four numbers both Codex (`turn.completed.usage`) and the Responses API
 * (`response.completed.response.usage`) report. `inputTokens` includes `cachedInputTokens`, and
 * `outputTokens` includes `reasoningTokens`, as in the API. Jobs and events carry this form.
 */
export const tokenUsageSchema = z.object({
  inputTokens: count,
  cachedInputTokens: count,
  outputTokens: count,
  reasoningTokens: count,
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** Token usage as views and reports show it. `cachedInput` is part of `input`, `reasoning` part of `output`; `total` = input + output. */
export const tokensSchema = z
  .object({ input: count, cachedInput: count, output: count, reasoning: count, total: count })
  .refine((tokens) => tokens.total === tokens.input + tokens.output, {
    message: "tokens.total must equal input + output (cached input is part of input, reasoning part of output).",
    path: ["total"],
  });
export type Tokens = z.infer<typeof tokensSchema>;

/** Builds a token record with its total, so callers never add the parts themselves. */
export function tokensWithTotal(options: Omit<Tokens, "total">): Tokens {
  return { ...options, total: options.input + options.output };
}
