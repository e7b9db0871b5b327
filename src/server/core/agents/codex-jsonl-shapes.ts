import { z } from "zod";
import type { TokenUsage } from "../../../shared/token-usage";

/**
 * The lines `codex exec --json` prints, as Codex writes them (lenient: unknown fields are ignored).
 * codex-events.ts turns them into our versioned events.
 */
export const codexUsage = z.object({
  input_tokens: z.number().int().nonnegative(),
  cached_input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative(),
  reasoning_output_tokens: z.number().int().nonnegative().optional(),
});
export const errorBody = z.object({ message: z.string() });
export const lineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("thread.started"), thread_id: z.string() }),
  z.object({ type: z.literal("turn.started") }),
  z.object({ type: z.literal("turn.completed"), usage: codexUsage }),
  z.object({ type: z.literal("turn.failed"), error: errorBody }),
  z.object({ type: z.literal("error"), message: z.string() }),
  z.object({
    type: z.enum(["item.started", "item.updated", "item.completed"]),
    item: z.looseObject({ id: z.string(), type: z.string() }),
  }),
]);
export const commandItem = z.object({
  command: z.string(),
  aggregated_output: z.string().catch(""),
  exit_code: z.number().int().nullable().catch(null),
  status: z.enum(["in_progress", "completed", "failed", "declined"]).catch("in_progress"),
});
export const fileChangeItem = z.object({
  changes: z.array(z.object({ path: z.string(), kind: z.enum(["add", "delete", "update"]) })),
  status: z.enum(["in_progress", "completed", "failed"]),
});
export const textItem = z.object({ text: z.string() });

const KNOWN_LINE_TYPES = [
  "thread.started",
  "turn.started",
  "turn.completed",
  "turn.failed",
  "error",
  "item.started",
  "item.updated",
  "item.completed",
];

/** Whether a JSON line that did not match lineSchema has a type Codex prints (then its shape is unexpected). */
export function isKnownLineType(json: unknown): boolean {
  return (
    typeof json === "object" && json !== null && KNOWN_LINE_TYPES.includes(String((json as { type?: unknown }).type))
  );
}

function usageFrom(usage: z.infer<typeof codexUsage>): TokenUsage {
  return {
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.cached_input_tokens ?? 0,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.reasoning_output_tokens ?? 0,
  };
}

function subtractUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: Math.max(0, a.inputTokens - b.inputTokens),
    cachedInputTokens: Math.max(0, a.cachedInputTokens - b.cachedInputTokens),
    outputTokens: Math.max(0, a.outputTokens - b.outputTokens),
    reasoningTokens: Math.max(0, a.reasoningTokens - b.reasoningTokens),
  };
}

/** A turn.completed's usage: Codex reports the thread's running total; this run's share is what came after `before`. */
export function turnUsage(
  usage: z.infer<typeof codexUsage>,
  before: TokenUsage,
): { thread: TokenUsage; run: TokenUsage } {
  const thread = usageFrom(usage);
  return { thread, run: subtractUsage(thread, before) };
}
