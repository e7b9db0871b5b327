import type http from "node:http";
import { sendApiError } from "./mock-api-error";
import type { MockScript, MockStep } from "./mock-script";
import { newId, sendJsonAnswer, usageObject } from "./mock-json-answer";
import { createSseWriter, type SseWriter } from "./mock-sse-writer";
import { offeredShellTools, shellCallArguments, writeFileCommand, type ResponsesRequest } from "./responses-request";

type ShellStep = Extract<MockStep, { kind: "run" | "write-file" }>;
type ReplyStep = Extract<MockStep, { kind: "reply" }>;
type CutStep = Extract<MockStep, { kind: "cut" }>;

/**
 * Answers one request with a script's step, as a Responses API event stream: created → (think) →
 * reasoning → a message, a shell call, or a cut stream → completed with the step's usage; to a request
 * with `stream: false`, the same response as one JSON body. A `fail` step answers with an HTTP error instead.
 */
export async function answerStep(options: {
  res: http.ServerResponse;
  script: MockScript;
  step: MockStep | null;
  request: ResponsesRequest;
  scriptName: string;
}): Promise<void> {
  const { res, script, request } = options;
  const step: MockStep = options.step ?? {
    kind: "reply",
    text: `(The mock script "${options.scriptName}" has no more steps.)`,
    repeat: 1,
    deltaChars: 4096,
  };
  if (step.kind === "fail")
    return sendApiError({
      res,
      status: step.status,
      message: step.message,
      type: step.status >= 500 ? "server_error" : "invalid_request_error",
    });
  let item: Record<string, unknown> | null = null;
  if (step.kind === "run" || step.kind === "write-file") {
    item = functionCallItem({ step, request });
    if (!item)
      return sendApiError({
        res,
        status: 400,
        message: `The mock script "${options.scriptName}" needs a shell tool (${step.tool ?? "exec_command, shell_command or shell"}) but the request offers none.`,
        type: "invalid_request_error",
      });
  }
  if (request.stream === false) return sendJsonAnswer({ res, script, step, request, item });
  const sse = await startStream({ res, model: request.model });
  const thinkMs = step.kind === "cut" ? 0 : (step.thinkMs ?? script.thinkMs);
  if (thinkMs > 0) await think({ res, ms: thinkMs });
  if (res.destroyed) return;
  let outputIndex = 0;
  const reasoning = step.kind === "cut" ? undefined : step.reasoning;
  if (reasoning !== undefined) await sendReasoning({ sse, outputIndex: outputIndex++, text: reasoning });
  if (step.kind === "cut") return sendCut({ res, sse, step, outputIndex });
  if (step.kind === "reply") await sendReply({ res, sse, step, outputIndex });
  else if (item) {
    await sse.send("response.output_item.added", { output_index: outputIndex, item });
    await sse.send("response.output_item.done", { output_index: outputIndex, item });
  }
  await sendCompleted({ sse, usage: step.usage ?? script.usage });
  res.end();
}

/** The step's shell call on the tool it names (else the first one offered); null when none is offered. */
function functionCallItem(options: { step: ShellStep; request: ResponsesRequest }): Record<string, unknown> | null {
  const { step } = options;
  const offered = offeredShellTools(options.request);
  const tool = step.tool ? offered.find((t) => t.name === step.tool) : offered[0];
  if (!tool) return null;
  const command = step.kind === "run" ? step.command : writeFileCommand({ path: step.path, content: step.content });
  const callId = newId("call");
  return {
    type: "function_call",
    id: newId("fc"),
    call_id: callId,
    name: tool.name,
    arguments: JSON.stringify(shellCallArguments({ tool, command, login: step.login })),
    status: "completed",
  };
}

async function startStream(options: { res: http.ServerResponse; model: string }): Promise<SseWriter> {
  const { res } = options;
  const sse = createSseWriter({ res, responseId: newId("resp"), model: options.model });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  await sse.send("response.created", { response: sse.response("in_progress") });
  await sse.send("response.in_progress", { response: sse.response("in_progress") });
  return sse;
}

/** A real model takes time to answer; a client that goes away ends the wait. */
function think(options: { res: http.ServerResponse; ms: number }): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, options.ms);
    options.res.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function sendReasoning(options: { sse: SseWriter; outputIndex: number; text: string }): Promise<void> {
  const { sse, outputIndex } = options;
  const reasoningItem = {
    type: "reasoning",
    id: newId("rs"),
    summary: [{ type: "summary_text", text: options.text }],
    content: [],
    encrypted_content: null,
  };
  await sse.send("response.output_item.added", { output_index: outputIndex, item: { ...reasoningItem, summary: [] } });
  await sse.send("response.output_item.done", { output_index: outputIndex, item: reasoningItem });
}

/** Part of a message, then the stream ends early: closed cleanly, or the connection dropped. */
async function sendCut(options: {
  res: http.ServerResponse;
  sse: SseWriter;
  step: CutStep;
  outputIndex: number;
}): Promise<void> {
  const { res, sse, step, outputIndex } = options;
  const messageId = newId("msg");
  await sse.send("response.output_item.added", {
    output_index: outputIndex,
    item: { type: "message", id: messageId, role: "assistant", status: "in_progress", content: [] },
  });
  await sse.send("response.output_text.delta", {
    item_id: messageId,
    output_index: outputIndex,
    content_index: 0,
    delta: step.partialText,
  });
  if (step.mode === "close") {
    res.end();
  } else {
    // Let the partial stream reach the client, then drop the connection without finishing the body.
    await new Promise<void>((resolve) => res.write("", () => resolve()));
    res.destroy();
  }
}

async function sendReply(options: {
  res: http.ServerResponse;
  sse: SseWriter;
  step: ReplyStep;
  outputIndex: number;
}): Promise<void> {
  const { res, sse, step, outputIndex } = options;
  const messageId = newId("msg");
  const text = step.text.repeat(step.repeat);
  const at = { item_id: messageId, output_index: outputIndex, content_index: 0 };
  await sse.send("response.output_item.added", {
    output_index: outputIndex,
    item: { type: "message", id: messageId, role: "assistant", status: "in_progress", content: [] },
  });
  await sse.send("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } });
  for (let from = 0; from < text.length && !res.destroyed; from += step.deltaChars) {
    await sse.send("response.output_text.delta", { ...at, delta: text.slice(from, from + step.deltaChars) });
  }
  await sse.send("response.output_text.done", { ...at, text });
  const message = {
    type: "message",
    id: messageId,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  await sse.send("response.content_part.done", { ...at, part: message.content[0] });
  await sse.send("response.output_item.done", { output_index: outputIndex, item: message });
}

async function sendCompleted(options: { sse: SseWriter; usage: MockScript["usage"] }): Promise<void> {
  const { sse, usage } = options;
  await sse.send("response.completed", { response: sse.response("completed", { usage: usageObject(usage) }) });
}
