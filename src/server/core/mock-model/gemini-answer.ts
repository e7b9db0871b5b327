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
} from "./mock-step";
import { GEMINI_SHELL_TOOL } from "./gemini-request";

/** Google's canonical status names by HTTP status (google.rpc.Code). */
function googleStatus(code: number): string {
  const names: Record<number, string> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
  };
  return names[code] ?? (code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
}

/** Answers with a Google API error body: `{error: {code, message, status}}`. */
export function sendGeminiError(options: { res: http.ServerResponse; status: number; message: string }): void {
  sendJson(options.res, options.status, {
    error: { code: options.status, message: options.message, status: googleStatus(options.status) },
  });
}

/**
 * A script's usage as Gemini reports it. Gemini's prompt count includes cached tokens (as the
 * script's inputTokens does), but its candidates count excludes thoughts, which it reports apart:
 * candidates + thoughts is the script's outputTokens.
 */
export function geminiUsage(usage: MockScript["usage"]) {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - usage.reasoningTokens),
    thoughtsTokenCount: usage.reasoningTokens,
    cachedContentTokenCount: usage.cachedInputTokens,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
}

export interface GeminiAnswerOptions {
  res: http.ServerResponse;
  script: MockScript;
  step: AnsweringStep;
  model: string;
  /** Whether the request asked for thoughts: a step's reasoning is sent as a `thought` part only then. */
  thoughts: boolean;
}

/** The parts a step answers with, one list per streamed chunk: thought, then text pieces or a functionCall. */
function partChunks(options: GeminiAnswerOptions): Record<string, unknown>[][] {
  const { step } = options;
  const chunks: Record<string, unknown>[][] = [];
  const reasoning = reasoningOf(step);
  if (options.thoughts && reasoning !== undefined) chunks.push([{ text: reasoning, thought: true }]);
  if (step.kind === "reply") for (const piece of replyPieces(step)) chunks.push([{ text: piece }]);
  else if (step.kind === "run" || step.kind === "write-file")
    chunks.push([
      {
        functionCall: {
          name: GEMINI_SHELL_TOOL,
          args: { command: shellCommandOf(step), description: shellDescriptionOf(step) },
        },
      },
    ]);
  else if (step.kind === "cut") chunks.push([{ text: step.partialText }]);
  if (chunks.length === 0) chunks.push([{ text: "" }]);
  return chunks;
}

function responseChunk(options: {
  parts: Record<string, unknown>[];
  model: string;
  responseId: string;
  final: { usage: MockScript["usage"] } | null;
}): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: "model", parts: options.parts }, index: 0 };
  if (options.final) candidate.finishReason = "STOP";
  return {
    candidates: [candidate],
    ...(options.final ? { usageMetadata: geminiUsage(options.final.usage) } : {}),
    modelVersion: options.model,
    responseId: options.responseId,
  };
}

/** `:generateContent`: the step's parts in one response (a cut sends half of it). */
export async function sendGeminiJson(options: GeminiAnswerOptions): Promise<void> {
  const { res, script, step } = options;
  await think({ res, ms: thinkMsOf(script, step) });
  if (res.destroyed) return;
  const body = responseChunk({
    parts: partChunks(options).flat(),
    model: options.model,
    responseId: newId("resp"),
    final: { usage: usageOf(script, step) },
  });
  if (step.kind !== "cut") return sendJson(res, 200, body);
  const text = JSON.stringify(body);
  res.writeHead(200, { "content-type": "application/json" });
  await writeChunk(res, text.slice(0, Math.floor(text.length / 2)));
  await cutStream(res, step.mode);
}

/**
 * `:streamGenerateContent`: one response chunk per part list, the last with finishReason STOP and
 * the usage. With `alt=sse` as server-sent events (`data: {json}`), else as one JSON array streamed
 * element by element, as Google's API does. A cut stream ends after its partial text.
 */
export async function streamGemini(options: GeminiAnswerOptions & { sse: boolean }): Promise<void> {
  const { res, script, step, sse } = options;
  if (sse) startEventStream(res);
  else {
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
  }
  await think({ res, ms: thinkMsOf(script, step) });
  if (res.destroyed) return;
  const responseId = newId("resp");
  const chunks = partChunks(options);
  for (const [i, parts] of chunks.entries()) {
    if (res.destroyed) return;
    const last = i === chunks.length - 1 && step.kind !== "cut";
    const json = JSON.stringify(
      responseChunk({ parts, model: options.model, responseId, final: last ? { usage: usageOf(script, step) } : null }),
    );
    await writeChunk(res, sse ? `data: ${json}\r\n\r\n` : `${i === 0 ? "[" : ",\r\n"}${json}`);
  }
  if (step.kind === "cut") return cutStream(res, step.mode);
  if (!sse) await writeChunk(res, "]");
  res.end();
}
