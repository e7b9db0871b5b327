import { randomUUID } from "node:crypto";
import http from "node:http";
import { isAppError } from "../errors/app-error";
import {
  isScriptName,
  listMockScripts,
  parseMockScript,
  readMockScript,
  type MockScript,
  type MockScriptInput,
  type MockStep,
} from "./mock-script";
import {
  offeredShellTools,
  responsesRequestSchema,
  shellCallArguments,
  stepIndexOf,
  writeFileCommand,
  type ResponsesRequest,
} from "./responses-request";
import { listenHttp } from "../../lib/listen";

/**
 * A local OpenAI Responses API (`POST /v1/responses`, `text/event-stream`) whose answers come from
 * scripts chosen by the request's `model`. Stateless: the step is derived from the conversation in
 * each request (see stepIndexOf). Every other path answers 404.
 */
export interface MockModelOptions {
  /** Directory of `<name>.json` scripts, read on each request. */
  scriptsDir?: string;
  /** Scripts by name, checked before `scriptsDir` (tests). */
  scripts?: Record<string, MockScriptInput>;
  host?: string;
  port?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (proves a gateway swapped its token). */
  apiKey?: string;
  /** Called for every `/v1/responses` request that names a script, before it is answered. */
  onRequest?: (request: MockModelRequest) => void;
}

export interface MockModelRequest {
  model: string;
  stepIndex: number;
  headers: http.IncomingHttpHeaders;
  body: ResponsesRequest;
}

export interface MockModelServer {
  /** Base URL to give a provider, ending in `/v1`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function apiError(res: http.ServerResponse, status: number, message: string, type = "mock_error"): void {
  sendJson(res, status, { error: { message, type, code: null, param: null } });
}

async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Writes SSE events with backpressure: resolves once the socket has room again. */
function sseWriter(res: http.ServerResponse, responseId: string, model: string) {
  let sequence = 0;
  const createdAt = Math.floor(Date.now() / 1000);
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: responseId,
    object: "response",
    created_at: createdAt,
    status,
    model,
    output: [],
    ...extra,
  });
  return {
    response,
    async send(type: string, payload: Record<string, unknown>): Promise<void> {
      const data = JSON.stringify({ type, sequence_number: sequence++, ...payload });
      if (!res.write(`event: ${type}\ndata: ${data}\n\n`)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
    },
  };
}

async function answer(options: {
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
    return apiError(res, step.status, step.message, step.status >= 500 ? "server_error" : "invalid_request_error");

  let item: Record<string, unknown> | null = null;
  if (step.kind === "run" || step.kind === "write-file") {
    const offered = offeredShellTools(request);
    const tool = step.tool ? offered.find((t) => t.name === step.tool) : offered[0];
    if (!tool) {
      return apiError(
        res,
        400,
        `The mock script "${options.scriptName}" needs a shell tool (${step.tool ?? "exec_command, shell_command or shell"}) but the request offers none.`,
        "invalid_request_error",
      );
    }
    const command = step.kind === "run" ? step.command : writeFileCommand({ path: step.path, content: step.content });
    const callId = `call_${randomUUID().replaceAll("-", "")}`;
    item = {
      type: "function_call",
      id: `fc_${randomUUID().replaceAll("-", "")}`,
      call_id: callId,
      name: tool.name,
      arguments: JSON.stringify(shellCallArguments({ tool, command, login: step.login })),
      status: "completed",
    };
  }

  const responseId = `resp_${randomUUID().replaceAll("-", "")}`;
  const sse = sseWriter(res, responseId, request.model);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  await sse.send("response.created", { response: sse.response("in_progress") });
  await sse.send("response.in_progress", { response: sse.response("in_progress") });
  const thinkMs = step.kind === "cut" ? 0 : (step.thinkMs ?? script.thinkMs);
  if (thinkMs > 0)
    await new Promise<void>((resolve) => {
      // a real model takes time to answer; a client that goes away ends the wait
      const timer = setTimeout(resolve, thinkMs);
      res.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  if (res.destroyed) return;
  let outputIndex = 0;

  const reasoning = step.kind === "cut" ? undefined : step.reasoning;
  if (reasoning !== undefined) {
    const reasoningItem = {
      type: "reasoning",
      id: `rs_${randomUUID().replaceAll("-", "")}`,
      summary: [{ type: "summary_text", text: reasoning }],
      content: [],
      encrypted_content: null,
    };
    await sse.send("response.output_item.added", {
      output_index: outputIndex,
      item: { ...reasoningItem, summary: [] },
    });
    await sse.send("response.output_item.done", { output_index: outputIndex++, item: reasoningItem });
  }

  if (step.kind === "cut") {
    const messageId = `msg_${randomUUID().replaceAll("-", "")}`;
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
    return;
  }

  if (step.kind === "reply") {
    const messageId = `msg_${randomUUID().replaceAll("-", "")}`;
    const text = step.text.repeat(step.repeat);
    await sse.send("response.output_item.added", {
      output_index: outputIndex,
      item: { type: "message", id: messageId, role: "assistant", status: "in_progress", content: [] },
    });
    await sse.send("response.content_part.added", {
      item_id: messageId,
      output_index: outputIndex,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (let at = 0; at < text.length && !res.destroyed; at += step.deltaChars) {
      await sse.send("response.output_text.delta", {
        item_id: messageId,
        output_index: outputIndex,
        content_index: 0,
        delta: text.slice(at, at + step.deltaChars),
      });
    }
    await sse.send("response.output_text.done", {
      item_id: messageId,
      output_index: outputIndex,
      content_index: 0,
      text,
    });
    const message = {
      type: "message",
      id: messageId,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    };
    await sse.send("response.content_part.done", {
      item_id: messageId,
      output_index: outputIndex,
      content_index: 0,
      part: message.content[0],
    });
    await sse.send("response.output_item.done", { output_index: outputIndex, item: message });
  } else if (item) {
    await sse.send("response.output_item.added", { output_index: outputIndex, item });
    await sse.send("response.output_item.done", { output_index: outputIndex, item });
  }
  const usage = step.usage ?? script.usage;
  await sse.send("response.completed", {
    response: sse.response("completed", {
      usage: {
        input_tokens: usage.inputTokens,
        input_tokens_details: { cached_tokens: usage.cachedInputTokens },
        output_tokens: usage.outputTokens,
        output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
        total_tokens: usage.inputTokens + usage.outputTokens,
      },
    }),
  });
  res.end();
}

export async function startMockModel(options: MockModelOptions): Promise<MockModelServer> {
  const inMemory = new Map<string, MockScript>();
  for (const [name, json] of Object.entries(options.scripts ?? {})) inMemory.set(name, parseMockScript({ name, json }));

  function findScript(name: string): MockScript | null {
    const script = inMemory.get(name);
    if (script) return script;
    return options.scriptsDir && isScriptName(name) ? readMockScript({ dir: options.scriptsDir, name }) : null;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? "/", "http://mock").pathname;
    if (pathname !== "/v1/responses")
      return apiError(res, 404, `The mock model serves only POST /v1/responses, not ${pathname}.`, "not_found");
    if (req.method !== "POST") return apiError(res, 405, "Use POST /v1/responses.", "invalid_request_error");
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return apiError(res, 401, "The mock model did not receive the API key it expects.", "invalid_api_key");
    }
    const raw = await readBody(req);
    if (raw === null) return apiError(res, 413, "Request body too large.", "invalid_request_error");
    let json: unknown;
    try {
      json = JSON.parse(raw.toString("utf8"));
    } catch {
      return apiError(res, 400, "The request body is not JSON.", "invalid_request_error");
    }
    const parsed = responsesRequestSchema.safeParse(json);
    if (!parsed.success)
      return apiError(
        res,
        400,
        `Not a Responses API request: ${parsed.error.issues[0]?.message ?? "invalid"}`,
        "invalid_request_error",
      );
    const request = parsed.data;
    if (request.stream === false)
      return apiError(res, 400, "The mock model only streams (send stream: true).", "invalid_request_error");
    const script = findScript(request.model);
    if (!script) {
      const available = [...inMemory.keys(), ...(options.scriptsDir ? listMockScripts(options.scriptsDir) : [])];
      return apiError(
        res,
        404,
        `No mock script is named "${request.model}". Available: ${available.join(", ") || "none"}.`,
        "model_not_found",
      );
    }
    const stepIndex = stepIndexOf(request);
    options.onRequest?.({ model: request.model, stepIndex, headers: req.headers, body: request });
    await answer({ res, script, step: script.steps[stepIndex] ?? null, request, scriptName: request.model });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      apiError(res, isAppError(error) ? 400 : 500, error instanceof Error ? error.message : String(error));
    });
  });
  const { port, baseUrl } = await listenHttp(server, {
    ...(options.host ? { host: options.host } : {}),
    ...(options.port ? { port: options.port } : {}),
  });
  return {
    url: `${baseUrl}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
