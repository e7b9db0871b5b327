import { z } from "zod";
import type { TokenUsage } from "../../../../shared/token-usage";
import { clip } from "../echo-limit";
import type { SseDialectFactory } from "../sse-usage-meter";
import { isRecord } from "./body-policy";
import type { JsonUsage } from "./gateway-api";

/**
 * Anthropic's token counts in the gateway's TokenUsage: Anthropic counts input read from the prompt
 * cache (`cache_read_input_tokens`) and written to it (`cache_creation_input_tokens`) apart from
 * `input_tokens`, where TokenUsage's input includes its cached part; so input is the sum of the three
 * and cached input the cache reads. Thinking is part of `output_tokens` (Anthropic gives no separate
 * count), so reasoning stays 0.
 */
const apiCount = z.number().int().nonnegative().catch(0);
const anthropicUsageSchema = z.object({
  input_tokens: apiCount.optional(),
  cache_read_input_tokens: apiCount.nullish(),
  cache_creation_input_tokens: apiCount.nullish(),
  output_tokens: apiCount.optional(),
});
type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

function tokenUsageOf(usage: AnthropicUsage): TokenUsage {
  const cached = usage.cache_read_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0),
    cachedInputTokens: cached,
    outputTokens: usage.output_tokens ?? 0,
    reasoningTokens: 0,
  };
}

/** The fields of `raw` that are there, over `base` (message_delta's counts are cumulative and may repeat the input's). */
function merged(base: AnthropicUsage, raw: unknown): AnthropicUsage {
  const parsed = anthropicUsageSchema.safeParse(raw);
  if (!parsed.success) return base;
  const out: AnthropicUsage = { ...base };
  for (const [key, value] of Object.entries(parsed.data))
    if (value !== undefined && value !== null) Object.assign(out, { [key]: value });
  return out;
}

const WANTED = /"type"\s*:\s*"(message_start|message_delta|error)"/;

/**
 * Anthropic's stream: `message_start` carries the input counts (and the model), each `message_delta`
 * the output so far (cumulative). The message's usage is reported once, at the end of the stream,
 * when a `message_delta` came (the message finished); a stream cut before it reports nothing, so the
 * relay charges its estimate. An `error` event is the run's last upstream error.
 */
export const anthropicDialect: SseDialectFactory = (handlers) => {
  let usage: AnthropicUsage = {};
  let finished = false;
  return {
    wants: (head, event) =>
      event === "message_start" || event === "message_delta" || event === "error" || WANTED.test(head),
    read(data) {
      if (!isRecord(data)) return;
      if (data.type === "message_start" && isRecord(data.message)) {
        usage = merged(usage, data.message.usage);
        const model = data.message.model;
        if (typeof model === "string" && model !== "") handlers.onModel?.(model.slice(0, 200));
      } else if (data.type === "message_delta") {
        usage = merged(usage, data.usage);
        finished = true;
      } else if (data.type === "error") {
        const message = isRecord(data.error) ? data.error.message : undefined;
        handlers.onStreamError?.(`stream error: ${typeof message === "string" ? clip(message, 500) : "no message"}`);
      }
    },
    end() {
      if (finished) handlers.onUsage(tokenUsageOf(usage));
    },
  };
};

/** A non-streamed message (`stream: false`): its `usage` and `model` at the top level. */
export function anthropicJsonUsage(parsed: unknown): JsonUsage {
  if (!isRecord(parsed)) return { unmetered: "its JSON body is not an object" };
  const raw = parsed.usage;
  if (!isRecord(raw) || typeof raw.input_tokens !== "number" || typeof raw.output_tokens !== "number")
    return { unmetered: "it reports no token usage" };
  const usage = anthropicUsageSchema.safeParse(raw);
  if (!usage.success) return { unmetered: "its token usage is malformed" };
  const model = typeof parsed.model === "string" && parsed.model !== "" ? clip(parsed.model) : null;
  return { usage: tokenUsageOf(usage.data), model };
}
