import { z } from "zod";
import type { TokenUsage } from "../../../../shared/token-usage";
import { clip } from "../echo-limit";
import type { SseDialectFactory } from "../sse-usage-meter";
import { isRecord } from "./body-policy";
import type { JsonUsage } from "./gateway-api";

/**
 * Gemini's token counts (`usageMetadata`) in the gateway's TokenUsage: `promptTokenCount` includes the
 * cached part (`cachedContentTokenCount`), as TokenUsage's input does; tool-use prompt tokens are input
 * too. `candidatesTokenCount` leaves out the thoughts (`thoughtsTokenCount`), which TokenUsage's output
 * includes as its reasoning. Each chunk of a stream repeats the counts so far (cumulative), so the last
 * chunk's are the response's.
 */
const apiCount = z.number().int().nonnegative().catch(0);
const usageMetadataSchema = z.object({
  promptTokenCount: apiCount.optional(),
  cachedContentTokenCount: apiCount.optional(),
  toolUsePromptTokenCount: apiCount.optional(),
  candidatesTokenCount: apiCount.optional(),
  thoughtsTokenCount: apiCount.optional(),
});

function tokenUsageOf(raw: unknown): TokenUsage | null {
  const parsed = usageMetadataSchema.safeParse(raw);
  if (!parsed.success) return null;
  const usage = parsed.data;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    cachedInputTokens: usage.cachedContentTokenCount ?? 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    reasoningTokens: thoughts,
  };
}

/** A chunk's figures: its usage (null without `usageMetadata`), the model version, and an error's message. */
function readChunk(chunk: unknown): { usage: TokenUsage | null; model: string | null; error: string | null } {
  if (!isRecord(chunk)) return { usage: null, model: null, error: null };
  const usage = chunk.usageMetadata ?? chunk.usage_metadata;
  const model = chunk.modelVersion ?? chunk.model_version;
  const error = isRecord(chunk.error) && typeof chunk.error.message === "string" ? chunk.error.message : null;
  return {
    usage: isRecord(usage) ? tokenUsageOf(usage) : null,
    model: typeof model === "string" && model !== "" ? clip(model, 200) : null,
    error,
  };
}

/**
 * Gemini's stream (`alt=sse`: `data: {GenerateContentResponse}` lines, no event names): the last
 * `usageMetadata` seen is reported when the stream ends. Every data line could carry it (it comes
 * after the candidates, past the first bytes), so lines mentioning it are parsed; the rest are not.
 */
export const geminiDialect: SseDialectFactory = (handlers) => {
  let last: TokenUsage | null = null;
  return {
    wants: () => true,
    needle: "sage", // in usageMetadata, usage_metadata and an error's "message": other lines are not parsed
    read(data) {
      const chunk = readChunk(data);
      if (chunk.usage) last = chunk.usage;
      if (chunk.model) handlers.onModel?.(chunk.model);
      if (chunk.error) handlers.onStreamError?.(`stream error: ${clip(chunk.error, 500)}`);
    },
    end() {
      if (last) handlers.onUsage(last);
    },
  };
};

/**
 * A JSON answer: `generateContent`'s one GenerateContentResponse, or `streamGenerateContent` without
 * `alt=sse`, a JSON array of them (the last with usage counts).
 */
export function geminiJsonUsage(parsed: unknown): JsonUsage {
  const chunks = Array.isArray(parsed) ? parsed : [parsed];
  if (!chunks.every(isRecord)) return { unmetered: "its JSON body is neither a response nor a list of them" };
  let usage: TokenUsage | null = null;
  let model: string | null = null;
  for (const chunk of chunks) {
    const read = readChunk(chunk);
    usage = read.usage ?? usage;
    model = read.model ?? model;
  }
  if (!usage) return { unmetered: "it reports no token usage (usageMetadata)" };
  return { usage, model };
}
