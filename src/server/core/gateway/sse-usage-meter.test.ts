import { describe, expect, it } from "vitest";
import type { TokenUsage } from "../../../shared/token-usage";
import { createSseUsageMeter } from "./sse-usage-meter";

function meter(stream: string, chunkSize: number): { usages: TokenUsage[]; errors: string[] } {
  const usages: TokenUsage[] = [];
  const errors: string[] = [];
  const m = createSseUsageMeter({ onUsage: (u) => usages.push(u), onStreamError: (e) => errors.push(e) });
  const bytes = Buffer.from(stream, "utf8");
  for (let at = 0; at < bytes.length; at += chunkSize) m.push(bytes.subarray(at, at + chunkSize));
  m.end();
  return { usages, errors };
}

const completed = (input: number, output: number, extra = "") =>
  `{"type":"response.completed","response":{"id":"r","status":"completed","output":[${extra}],"usage":{"input_tokens":${input},"input_tokens_details":{"cached_tokens":2},"output_tokens":${output},"output_tokens_details":{"reasoning_tokens":1},"total_tokens":${input + output}}}}`;

describe("SSE usage meter", () => {
  const bigText = "usage ".repeat(50_000); // mentions "usage" but is only text
  const delta = `{"type":"response.output_text.delta","delta":${JSON.stringify(bigText)},"usage":"not this one"}`;
  const streams = {
    "with event lines": `event: response.created\ndata: {"type":"response.created"}\n\nevent: response.output_text.delta\ndata: ${delta}\n\nevent: response.completed\ndata: ${completed(10, 5)}\n\n`,
    "data lines only, CRLF": `data: {"type":"response.created"}\r\n\r\ndata: ${delta}\r\n\r\ndata: ${completed(10, 5)}\r\n\r\n`,
    "a large completed event, no trailing newline": `data: ${delta}\n\ndata: ${completed(10, 5, `{"type":"message","content":[{"type":"output_text","text":${JSON.stringify(bigText)}}]}`)}`,
  };

  it.each(Object.entries(streams))(
    "finds the usage of response.completed (%s), however the bytes are chunked",
    (_name, stream) => {
      for (const size of [1, 3, 7, 159, 160, 161, 4096, 1 << 20]) {
        expect(meter(stream, size)).toEqual({
          usages: [{ inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, reasoningTokens: 1 }],
          errors: [],
        });
      }
    },
  );

  it("counts every finished response, reports failures, ignores junk", () => {
    const stream = [
      `data: ${completed(1, 1)}`,
      `data: {"type":"response.incomplete","response":{"usage":{"input_tokens":4,"output_tokens":2}}}`,
      `event: response.failed\ndata: {"type":"response.failed","response":{"error":{"message":"overloaded"},"usage":{"input_tokens":3,"output_tokens":0}}}`,
      `event: error\ndata: {"type":"error","message":"bad things"}`,
      `data: {"type":"response.completed","response":{"usage":{"input_tokens":"x"}}}`,
      "data: [DONE]",
      ": a comment",
      "retry: 100",
    ].join("\n\n");
    const { usages, errors } = meter(`${stream}\n\n`, 5);
    expect(usages.map((u) => u.inputTokens)).toEqual([1, 4, 3, 0]);
    expect(errors).toEqual(["response.failed: overloaded", "stream error: bad things"]);
  });

  it("reports the model a finished response names (what the provider says it ran)", () => {
    const models: string[] = [];
    const m = createSseUsageMeter({ onUsage: () => undefined, onModel: (model) => models.push(model) });
    const withModel = completed(1, 1).replace('"id":"r",', '"id":"r","model":"gpt-5-2025-08-07",');
    m.push(
      Buffer.from(`data: {"type":"response.created","response":{"model":"not finished"}}\n\ndata: ${withModel}\n\n`),
    );
    m.push(Buffer.from(`data: ${completed(1, 1)}\n\n`));
    m.end();
    expect(models).toEqual(["gpt-5-2025-08-07"]);
  });
});
