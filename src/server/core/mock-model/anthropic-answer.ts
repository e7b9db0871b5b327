import type http from "node:http";
import { newId } from "./mock-json-answer";
import { cutStream, sendJson, startEventStream, think, writeChunk } from "./mock-http";
import type { MockScript } from "./mock-script";
import {
  reasoningOf,
  replyPieces,
  shellCommandOf,
  shellDescriptionOf,
  thinkMsOf,
  usageOf,
  type AnsweringStep,
  type CutStep,
  type ReplyStep,
} from "./mock-step";
import { ANTHROPIC_SHELL_TOOL } from "./anthropic-request";

/** Anthropic's error types by HTTP status (https://docs.anthropic.com/en/api/errors). */
function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** Answers with an Anthropic error body: `{type: "error", error: {type, message}}`. */
export function sendAnthropicError(options: { res: http.ServerResponse; status: number; message: string }): void {
  sendJson(options.res, options.status, {
    type: "error",
    error: { type: anthropicErrorType(options.status), message: options.message },
  });
}

/**
 * A script's usage as Anthropic reports it. The script counts input as OpenAI does (cached tokens
 * are part of it); Anthropic counts cache reads apart, so input_tokens + cache_read_input_tokens is
 * the script's inputTokens. output_tokens includes thinking, as the script's outputTokens does.
 */
export function anthropicUsage(usage: MockScript["usage"]) {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
  };
}

interface AnswerOptions {
  res: http.ServerResponse;
  script: MockScript;
  step: AnsweringStep;
  model: string;
  /** Whether the request turned thinking on: a step's reasoning is sent as a thinking block only then. */
  thinking: boolean;
}

/** The content blocks of a step's message: thinking (when on), then a text or a Bash tool_use. */
function contentBlocks(options: AnswerOptions): Record<string, unknown>[] {
  const { step } = options;
  const blocks: Record<string, unknown>[] = [];
  const reasoning = reasoningOf(step);
  if (options.thinking && reasoning !== undefined)
    blocks.push({ type: "thinking", thinking: reasoning, signature: newId("sig") });
  if (step.kind === "reply") blocks.push({ type: "text", text: step.text.repeat(step.repeat) });
  else if (step.kind === "run" || step.kind === "write-file")
    blocks.push({
      type: "tool_use",
      id: newId("toolu"),
      name: ANTHROPIC_SHELL_TOOL,
      input: { command: shellCommandOf(step), description: shellDescriptionOf(step) },
    });
  return blocks;
}

const stopReason = (step: AnsweringStep) => (step.kind === "reply" ? "end_turn" : "tool_use");

/** The step's message as one JSON body (`stream` false or absent); a cut sends half of it. */
export async function sendAnthropicJson(options: AnswerOptions): Promise<void> {
  const { res, script, step } = options;
  await think({ res, ms: thinkMsOf(script, step) });
  if (res.destroyed) return;
  const message = {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model: options.model,
    content: step.kind === "cut" ? [{ type: "text", text: step.partialText }] : contentBlocks(options),
    stop_reason: stopReason(step),
    stop_sequence: null,
    usage: anthropicUsage(usageOf(script, step)),
  };
  if (step.kind !== "cut") return sendJson(res, 200, message);
  const body = JSON.stringify(message);
  res.writeHead(200, { "content-type": "application/json" });
  await writeChunk(res, body.slice(0, Math.floor(body.length / 2)));
  await cutStream(res, step.mode);
}

function createAnthropicSse(res: http.ServerResponse) {
  return (type: string, payload: Record<string, unknown> = {}) =>
    writeChunk(res, `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
}
type AnthropicSse = ReturnType<typeof createAnthropicSse>;

/**
 * The step's message as Anthropic's event stream: message_start (with the input usage) → ping →
 * (think) → one content_block_start/delta.../stop per block → message_delta (stop reason, output
 * usage) → message_stop. A cut stream ends inside its text block.
 */
export async function streamAnthropic(options: AnswerOptions): Promise<void> {
  const { res, script, step } = options;
  const usage = anthropicUsage(usageOf(script, step));
  startEventStream(res);
  const send = createAnthropicSse(res);
  await send("message_start", {
    message: {
      id: newId("msg"),
      type: "message",
      role: "assistant",
      model: options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  await send("ping");
  await think({ res, ms: thinkMsOf(script, step) });
  if (res.destroyed) return;
  if (step.kind === "cut") return sendCut({ res, send, step });
  let index = 0;
  for (const block of contentBlocks(options)) {
    if (block.type === "text" && step.kind === "reply") await sendText({ res, send, step, index });
    else await sendBlock({ send, block, index });
    index += 1;
  }
  await send("message_delta", {
    delta: { stop_reason: stopReason(step), stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  await send("message_stop");
  res.end();
}

async function sendText(options: {
  res: http.ServerResponse;
  send: AnthropicSse;
  step: ReplyStep;
  index: number;
}): Promise<void> {
  const { send, index } = options;
  await send("content_block_start", { index, content_block: { type: "text", text: "" } });
  for (const piece of replyPieces(options.step)) {
    if (options.res.destroyed) return;
    await send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
  }
  await send("content_block_stop", { index });
}

/** A thinking or tool_use block: started empty, filled by one delta (two for thinking's signature), stopped. */
async function sendBlock(options: { send: AnthropicSse; block: Record<string, unknown>; index: number }) {
  const { send, block, index } = options;
  if (block.type === "thinking") {
    await send("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
    await send("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking } });
    await send("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
  } else {
    await send("content_block_start", { index, content_block: { ...block, input: {} } });
    await send("content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
    });
  }
  await send("content_block_stop", { index });
}

async function sendCut(options: { res: http.ServerResponse; send: AnthropicSse; step: CutStep }): Promise<void> {
  const { send, step } = options;
  await send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  await send("content_block_delta", { index: 0, delta: { type: "text_delta", text: step.partialText } });
  await cutStream(options.res, step.mode);
}
