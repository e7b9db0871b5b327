import http from "node:http";
import { isAppError } from "../errors/app-error";
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
  if (parsed.data.stream === false)
    return refuse(400, "The mock model only streams (send stream: true).", "invalid_request_error");
  return parsed.data;
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
    const stepIndex = stepIndexOf(request);
    options.onRequest?.({ model: request.model, stepIndex, headers: req.headers, body: request });
    await answerStep({ res, script, step: script.steps[stepIndex] ?? null, request, scriptName: request.model });
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
        message: error instanceof Error ? error.message : String(error),
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
