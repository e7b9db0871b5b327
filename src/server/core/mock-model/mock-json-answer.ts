import { randomUUID } from "node:crypto";
import type http from "node:http";
import type { MockScript, MockStep } from "./mock-script";
import type { ResponsesRequest } from "./responses-request";

export const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`;

/** A script's usage as the Responses API reports it. */
export function usageObject(usage: MockScript["usage"]): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

type AnsweringStep = Exclude<MockStep, { kind: "fail" }>;

/** The output items of a step's response: its reasoning summary, then its message or shell call. */
function outputItems(options: { step: AnsweringStep; item: Record<string, unknown> | null }): unknown[] {
  const { step } = options;
  const output: unknown[] = [];
  if (step.kind !== "cut" && step.reasoning !== undefined)
    output.push({ type: "reasoning", id: newId("rs"), summary: [{ type: "summary_text", text: step.reasoning }] });
  if (step.kind === "reply")
    output.push({
      type: "message",
      id: newId("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: step.text.repeat(step.repeat), annotations: [] }],
    });
  else if (options.item) output.push(options.item);
  return output;
}

/**
 * A step's response to a request with `stream: false`: one JSON body (`object: "response"`, its output
 * items and `usage`), after the step's think time. A `cut` step sends part of the body, then closes the
 * connection cleanly (`close`) or drops it (`reset`).
 */
export async function sendJsonAnswer(options: {
  res: http.ServerResponse;
  script: MockScript;
  step: AnsweringStep;
  request: ResponsesRequest;
  item: Record<string, unknown> | null;
}): Promise<void> {
  const { res, script, step } = options;
  const thinkMs = step.kind === "cut" ? 0 : (step.thinkMs ?? script.thinkMs);
  if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
  if (res.destroyed) return;
  const body = JSON.stringify({
    id: newId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: options.request.model,
    output: outputItems({ step, item: options.item }),
    usage: usageObject(step.kind === "cut" ? script.usage : (step.usage ?? script.usage)),
  });
  if (step.kind !== "cut") {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  await new Promise<void>((resolve) => res.write(body.slice(0, Math.floor(body.length / 2)), () => resolve()));
  if (step.mode === "close") res.end();
  else res.destroy();
}
