import { z } from "zod";
import type { Tokens } from "./token-usage";

/**
 * Tokens in money: a price per million tokens for each model (input, cached input, output, reasoning), in
 * US dollars. The shipped defaults are the providers' published list prices for well-known models at the
 * time of writing; the System page edits the table (an edit overrides a default, a new row prices another
 * model). A model with no price has an **unknown** price: its cost is shown as unknown, never as zero.
 */
const perMillion = z
  .number({ error: "A price is a number of US dollars per million tokens." })
  .finite()
  .min(0, "A price cannot be negative.")
  .max(100_000, "A price above $100,000 per million tokens is surely a typo.");

export const modelPriceSchema = z.object({
  model: z
    .string()
    .trim()
    .min(1, "Name the model as its configurations do.")
    .max(200)
    .refine(
      (name) => ![...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f),
      "A model name has no control characters.",
    ),
  inputPerMillion: perMillion,
  cachedInputPerMillion: perMillion,
  outputPerMillion: perMillion,
  reasoningPerMillion: perMillion,
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;
export const resetPriceInputSchema = z.strictObject({ model: modelPriceSchema.shape.model });

/** A row of the effective table: where its price comes from. */
export type PricedModel = ModelPrice & { source: "default" | "edited"; updatedAt: string | null };

const price = (model: string, input: number, cached: number, output: number): ModelPrice => ({
  model,
  inputPerMillion: input,
  cachedInputPerMillion: cached,
  outputPerMillion: output,
  // reasoning (thinking) tokens are billed as output tokens by every provider listed
  reasoningPerMillion: output,
});

/** Published list prices (US dollars per million tokens) of well-known models; edit them on the System page. */
export const DEFAULT_MODEL_PRICES: readonly ModelPrice[] = [
  price("gpt-5", 1.25, 0.125, 10),
  price("gpt-5-codex", 1.25, 0.125, 10),
  price("gpt-5-mini", 0.25, 0.025, 2),
  price("gpt-5-nano", 0.05, 0.005, 0.4),
  price("gpt-4.1", 2, 0.5, 8),
  price("gpt-4.1-mini", 0.4, 0.1, 1.6),
  price("gpt-4.1-nano", 0.1, 0.025, 0.4),
  price("gpt-4o", 2.5, 1.25, 10),
  price("gpt-4o-mini", 0.15, 0.075, 0.6),
  price("o3", 2, 0.5, 8),
  price("o4-mini", 1.1, 0.275, 4.4),
  price("codex-mini-latest", 1.5, 0.375, 6),
  // Anthropic: list prices on https://docs.anthropic.com/en/docs/about-claude/pricing as of November 2025
  // (cached input = a prompt-cache read; cache writes, 1.25x input, are priced here as input). Each model
  // under the alias Claude Code takes (`--model claude-sonnet-4-5`) and the 4.0 models' `-0` aliases.
  price("claude-opus-4-5", 5, 0.5, 25),
  price("claude-opus-4-1", 15, 1.5, 75),
  price("claude-opus-4-0", 15, 1.5, 75),
  price("claude-sonnet-4-5", 3, 0.3, 15),
  price("claude-sonnet-4-0", 3, 0.3, 15),
  price("claude-haiku-4-5", 1, 0.1, 5),
  price("claude-3-5-haiku-latest", 0.8, 0.08, 4),
  // Google: paid-tier list prices on https://ai.google.dev/gemini-api/docs/pricing as of November 2025, for
  // prompts up to 200k tokens (longer prompts cost more on the Pro models); cached input = context caching;
  // thinking tokens are billed as output.
  price("gemini-3-pro-preview", 2, 0.2, 12),
  price("gemini-2.5-pro", 1.25, 0.125, 10),
  price("gemini-2.5-flash", 0.3, 0.03, 2.5),
  price("gemini-2.5-flash-lite", 0.1, 0.01, 0.4),
];

/** The effective table: the defaults, with the edited rows over them and after them. */
export function effectivePrices(edited: readonly (ModelPrice & { updatedAt: string })[]): PricedModel[] {
  const byModel = new Map<string, PricedModel>();
  for (const row of DEFAULT_MODEL_PRICES) byModel.set(row.model, { ...row, source: "default", updatedAt: null });
  for (const row of edited) byModel.set(row.model, { ...row, source: "edited" });
  return [...byModel.values()];
}

/** The price of a model (exactly as configured), or null: unknown. */
export function priceOf(model: string, table: readonly ModelPrice[]): ModelPrice | null {
  return table.find((row) => row.model === model) ?? null;
}

/**
 * What the tokens cost at a price, in dollars. Cached input is part of input and reasoning part of output
 * (as the API counts them), so each part is priced once: uncached input, cached input, output that is not
 * reasoning, reasoning.
 */
export function tokenCost(tokens: Omit<Tokens, "total">, price: ModelPrice): number {
  const uncached = Math.max(0, tokens.input - tokens.cachedInput);
  const visibleOutput = Math.max(0, tokens.output - tokens.reasoning);
  return (
    (uncached * price.inputPerMillion +
      tokens.cachedInput * price.cachedInputPerMillion +
      visibleOutput * price.outputPerMillion +
      tokens.reasoning * price.reasoningPerMillion) /
    1_000_000
  );
}

/** `$0.0123`, `$1.23`, `$1,234.56`; "unknown price" for null. */
export function formatCost(cost: number | null): string {
  if (cost === null) return "unknown price";
  const digits = cost !== 0 && Math.abs(cost) < 0.01 ? 4 : 2;
  return `$${cost.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}
