import { describe, expect, it } from "vitest";
import type { TokenUsage } from "../../../../shared/token-usage";
import { usageOfJsonBody } from "../json-usage";
import { createSseUsageMeter, type SseDialectFactory } from "../sse-usage-meter";
import { anthropicDialect } from "./anthropic-usage";
import { geminiDialect } from "./gemini-usage";

/**
 * Metering Anthropic's and Gemini's answers from recorded bodies (shapes as the APIs send them), however
 * the bytes are chunked: Anthropic's counts come in message_start and message_delta (cumulative, cache
 * reads and writes apart from input_tokens), Gemini's in every chunk's usageMetadata (cumulative: the last
 * one counts).
 */
function meter(dialect: SseDialectFactory, stream: string, chunkSize: number) {
  const usages: TokenUsage[] = [];
  const models: string[] = [];
  const errors: string[] = [];
  const m = createSseUsageMeter(
    { onUsage: (u) => usages.push(u), onModel: (x) => models.push(x), onStreamError: (e) => errors.push(e) },
    dialect,
  );
  const bytes = Buffer.from(stream, "utf8");
  for (let at = 0; at < bytes.length; at += chunkSize) m.push(bytes.subarray(at, at + chunkSize));
  m.end();
  m.end(); // a second end (the relay's paths can meet) reports nothing more
  return { usages, models: [...new Set(models)], errors, metered: m.metered };
}

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const bigText = "usage ".repeat(40_000);
const ANTHROPIC_START = event("message_start", {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [],
    usage: { input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 4000, output_tokens: 1 },
  },
});
const ANTHROPIC_BODY = [
  event("ping", { type: "ping" }),
  event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: bigText } }),
  event("content_block_stop", { type: "content_block_stop", index: 0 }),
].join("");
// newer API versions repeat the input counts in message_delta: they must not be counted twice
const ANTHROPIC_END =
  event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { input_tokens: 12, cache_read_input_tokens: 4000, output_tokens: 250 },
  }) + event("message_stop", { type: "message_stop" });

const geminiChunk = (text: string, usage: Record<string, number> | null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...extra }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: "gemini-2.5-pro",
    responseId: "r1",
  })}\r\n\r\n`;
const GEMINI_STREAM =
  geminiChunk(bigText, { promptTokenCount: 5000, candidatesTokenCount: 3, totalTokenCount: 5003 }) +
  geminiChunk("more", { promptTokenCount: 5000, candidatesTokenCount: 40, thoughtsTokenCount: 90 }) +
  geminiChunk(
    "",
    {
      promptTokenCount: 5000,
      cachedContentTokenCount: 4096,
      candidatesTokenCount: 120,
      thoughtsTokenCount: 90,
      toolUsePromptTokenCount: 7,
      totalTokenCount: 5217,
    },
    { finishReason: "STOP" },
  );

describe("metering Anthropic's and Gemini's answers", () => {
  it("meters an Anthropic stream once, at its end, from message_start and the last message_delta", () => {
    for (const size of [1, 7, 159, 160, 161, 4096, 1 << 20]) {
      expect(meter(anthropicDialect, ANTHROPIC_START + ANTHROPIC_BODY + ANTHROPIC_END, size)).toEqual({
        usages: [{ inputTokens: 4312, cachedInputTokens: 4000, outputTokens: 250, reasoningTokens: 0 }],
        models: ["claude-sonnet-4-5-20250929"],
        errors: [],
        metered: true,
      });
    }
  });

  it("reports nothing for an Anthropic stream cut before message_delta (the relay charges an estimate), and reports an error event", () => {
    expect(meter(anthropicDialect, ANTHROPIC_START + ANTHROPIC_BODY, 100)).toMatchObject({
      usages: [],
      metered: false,
    });
    const overloaded = event("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(meter(anthropicDialect, ANTHROPIC_START + overloaded, 50).errors).toEqual(["stream error: Overloaded"]);
  });

  it("meters a Gemini stream by its last usageMetadata (thoughts as reasoning, tool-use prompt as input)", () => {
    for (const size of [1, 7, 160, 4096, 1 << 20]) {
      expect(meter(geminiDialect, GEMINI_STREAM, size)).toEqual({
        usages: [{ inputTokens: 5007, cachedInputTokens: 4096, outputTokens: 210, reasoningTokens: 90 }],
        models: ["gemini-2.5-pro"],
        errors: [],
        metered: true,
      });
    }
    expect(meter(geminiDialect, geminiChunk("no usage", null), 64)).toMatchObject({ usages: [], metered: false });
    const error = `data: ${JSON.stringify({ error: { code: 500, message: "Internal error", status: "INTERNAL" } })}\n\n`;
    expect(meter(geminiDialect, error, 64).errors).toEqual(["stream error: Internal error"]);
  });

  it("meters JSON answers: an Anthropic message, a Gemini response and a Gemini array", () => {
    const message = {
      id: "msg_1",
      type: "message",
      model: "claude-opus-4-1",
      content: [{ type: "text", text: "hi" }],
      usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 2, output_tokens: 3 },
    };
    expect(usageOfJsonBody(Buffer.from(JSON.stringify(message)), "anthropic")).toEqual({
      usage: { inputTokens: 17, cachedInputTokens: 5, outputTokens: 3, reasoningTokens: 0 },
      model: "claude-opus-4-1",
    });
    const response = {
      candidates: [],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, thoughtsTokenCount: 5 },
      modelVersion: "gemini-2.5-flash",
    };
    const expected = {
      usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 25, reasoningTokens: 5 },
      model: "gemini-2.5-flash",
    };
    expect(usageOfJsonBody(Buffer.from(JSON.stringify(response)), "gemini")).toEqual(expected);
    const array = [{ candidates: [], usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 1 } }, response];
    expect(usageOfJsonBody(Buffer.from(JSON.stringify(array)), "gemini")).toEqual(expected);
    for (const [api, body] of [
      ["anthropic", { type: "message", content: [] }],
      ["gemini", { candidates: [] }],
      ["gemini", [1, 2]],
    ] as const)
      expect(usageOfJsonBody(Buffer.from(JSON.stringify(body)), api), JSON.stringify(body)).toHaveProperty("unmetered");
  });
});
