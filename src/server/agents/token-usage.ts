import { z } from "zod";
import { tokenUsageSchema, type TokenUsage } from "../../shared/token-usage";

/** The four token counts of a run are declared once, in src/shared/token-usage.ts. */
export { tokenUsageSchema, type TokenUsage };

export const ZERO_USAGE: TokenUsage = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
});

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

/** Input plus output tokens: what a token budget counts. */
export function totalTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens;
}

const count = z.number().int().nonnegative().catch(0);

/** The `usage` object of a Responses API `response.completed` event. */
export const responsesUsageSchema = z
  .object({
    input_tokens: count,
    input_tokens_details: z.object({ cached_tokens: count }).nullish(),
    output_tokens: count,
    output_tokens_details: z.object({ reasoning_tokens: count }).nullish(),
  })
  .transform((usage): TokenUsage => ({
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  }));
