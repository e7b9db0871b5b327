import http from "node:http";
import { AppError, isAppError } from "../errors/app-error";
import { answerStep } from "./mock-answer";
import { sendApiError } from "./mock-api-error";
import {
  isScriptName,
  listMockScripts,
  parseMockScript,
  readMockScript,
  type MockScript,
  type MockScriptInput,
} from "./mock-script";
import { responsesRequestSchema, stepIndexOf, type ResponsesRequest } from "./responses-request";
import { listenHttp } from "../../../lib/listen";
import { messageOf } from "../../../shared/error-message";

/**
 * A local OpenAI Responses API (`POST /v1/responses`: `text/event-stream`, or one JSON body for
 * `stream: false`) whose answers come from scripts chosen by the request's `model`. Stateless: the step is derived from the conversation in
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

/** The request's Responses API body; null when it was refused (and answered with an error). */
async function readResponsesRequest(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  apiKey: string | undefined;
}): Promise<ResponsesRequest | null> {
  const { req, res } = options;
  const refuse = (status: number, message: string, type: string) => {
    sendApiError({ res, status, message, type });
    return null;
  };
  const pathname = new URL(req.url ?? "/", "http://mock").pathname;
  if (pathname !== "/v1/responses")
    return refuse(404, `The mock model serves only POST /v1/responses, not ${pathname}.`, "not_found");
  if (req.method !== "POST") return refuse(405, "Use POST /v1/responses.", "invalid_request_error");
  if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
    return refuse(401, "The mock model did not receive the API key it expects.", "invalid_api_key");
  const raw = await readBody(req);
  if (raw === null) return refuse(413, "Request body too large.", "invalid_request_error");
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return refuse(400, "The request body is not JSON.", "invalid_request_error");
  }
  const parsed = responsesRequestSchema.safeParse(json);
  if (!parsed.success)
    return refuse(
      400,
      `Not a Responses API request: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      "invalid_request_error",
    );
  return parsed.data;
}

/** The conversation a request belongs to: Codex's `prompt_cache_key` (its conversation id), else the `session_id` header. */
function conversationKey(request: ResponsesRequest, headers: http.IncomingHttpHeaders): string | null {
  const key = (request as { prompt_cache_key?: unknown }).prompt_cache_key;
  if (typeof key === "string" && key !== "") return key;
  const header = headers["session_id"] ?? headers["conversation_id"];
  return typeof header === "string" && header !== "" ? header : null;
}

const MAX_CONVERSATIONS = 10_000;

/**
 * Scripts with `alternate`: each new conversation naming the script gets the next of [the script,
 * ...alternate] in turn, and keeps it for every later request of that conversation.
 */
function createAlternation() {
  const chosen = new Map<string, string>();
  const started = new Map<string, number>();
  return (options: { name: string; script: MockScript; key: string | null }): string => {
    const { name, script, key } = options;
    if (script.alternate.length === 0) return name;
    if (key === null)
      throw new AppError({
        code: "BAD_REQUEST",
        message: `Mock script "${name}" alternates by conversation, and this request names none (no prompt_cache_key or session_id).`,
      });
    const remembered = chosen.get(`${name}\0${key}`);
    if (remembered) return remembered;
    const cycle = [name, ...script.alternate];
    const n = started.get(name) ?? 0;
    started.set(name, n + 1);
    const pick = cycle[n % cycle.length] ?? name;
    if (chosen.size >= MAX_CONVERSATIONS) chosen.delete(chosen.keys().next().value ?? "");
    chosen.set(`${name}\0${key}`, pick);
    return pick;
  };
}

export async function startMockModel(options: MockModelOptions): Promise<MockModelServer> {
  const inMemory = new Map<string, MockScript>();
  for (const [name, json] of Object.entries(options.scripts ?? {})) inMemory.set(name, parseMockScript({ name, json }));
  const alternation = createAlternation();

  function findScript(name: string): MockScript | null {
    const script = inMemory.get(name);
    if (script) return script;
    return options.scriptsDir && isScriptName(name) ? readMockScript({ dir: options.scriptsDir, name }) : null;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const request = await readResponsesRequest({ req, res, apiKey: options.apiKey });
    if (!request) return;
    const script = findScript(request.model);
    if (!script) {
      const available = [...inMemory.keys(), ...(options.scriptsDir ? listMockScripts(options.scriptsDir) : [])];
      return sendApiError({
        res,
        status: 404,
        message: `No mock script is named "${request.model}". Available: ${available.join(", ") || "none"}.`,
        type: "model_not_found",
      });
    }
    const played = alternation({ name: request.model, script, key: conversationKey(request, req.headers) });
    const playing = played === request.model ? script : findScript(played);
    if (!playing)
      return sendApiError({
        res,
        status: 404,
        message: `Mock script "${request.model}" alternates with "${played}", which does not exist.`,
        type: "model_not_found",
      });
    const stepIndex = stepIndexOf(request);
    options.onRequest?.({ model: request.model, stepIndex, headers: req.headers, body: request });
    await answerStep({ res, script: playing, step: playing.steps[stepIndex] ?? null, request, scriptName: played });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendApiError({
        res,
        status: isAppError(error) ? 400 : 500,
        message: messageOf(error),
      });
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
