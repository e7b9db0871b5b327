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

/** A run's usage (a job, an event, a database row: they carry the four counts by these names) as views show it. */
export function tokensOf(usage: TokenUsage): Tokens {
  return tokensWithTotal({
    input: usage.inputTokens,
    cachedInput: usage.cachedInputTokens,
    output: usage.outputTokens,
    reasoning: usage.reasoningTokens,
  });
}

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

/** An API usage count: anything but a non-negative integer reads as 0. */
const apiCount = z.number().int().nonnegative().catch(0);

/** The `usage` object of a Responses API `response.completed` event. */
export const responsesUsageSchema = z
  .object({
    input_tokens: apiCount,
    input_tokens_details: z.object({ cached_tokens: apiCount }).nullish(),
    output_tokens: apiCount,
    output_tokens_details: z.object({ reasoning_tokens: apiCount }).nullish(),
  })
  .transform((usage): TokenUsage => ({
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  }));
