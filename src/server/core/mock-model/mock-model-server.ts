import http from "node:http";
import { isAppError } from "../errors/app-error";
import { sendAnthropicError } from "./anthropic-answer";
import { ANTHROPIC_COUNT_PATH, ANTHROPIC_MESSAGES_PATH, handleAnthropic } from "./anthropic-route";
import { sendGeminiError } from "./gemini-answer";
import { parseGeminiPath } from "./gemini-request";
import { handleGemini } from "./gemini-route";
import { sendApiError } from "./mock-api-error";
import type { MockModelApi, MockModelOptions } from "./mock-model-types";
import { handleResponses } from "./responses-route";
import { createScriptCatalog } from "./script-catalog";
import { listenHttp } from "../../../lib/listen";
import { messageOf } from "../../../shared/error-message";

export type { MockModelApi, MockModelOptions, MockModelRequest } from "./mock-model-types";

export interface MockModelServer {
  /** Base URL to give a Responses API client, ending in `/v1`. */
  url: string;
  /** The server root (no `/v1`): the base URL for Anthropic and Gemini clients. */
  rootUrl: string;
  port: number;
  close(): Promise<void>;
}

const SERVED = `POST /v1/responses, POST ${ANTHROPIC_MESSAGES_PATH} (and /count_tokens) and POST /v1beta/models/<model>:generateContent, :streamGenerateContent or :countTokens`;

/** Which API a path belongs to, so that even its errors come in that API's shape. */
function apiOf(pathname: string): MockModelApi | null {
  if (pathname === "/v1/responses") return "responses";
  if (pathname === ANTHROPIC_MESSAGES_PATH || pathname === ANTHROPIC_COUNT_PATH) return "anthropic";
  if (parseGeminiPath(pathname)) return "gemini";
  return null;
}

function sendError(options: { api: MockModelApi; res: http.ServerResponse; status: number; message: string }) {
  const { api, ...error } = options;
  if (api === "anthropic") sendAnthropicError(error);
  else if (api === "gemini") sendGeminiError(error);
  else sendApiError(error);
}

/**
 * A local model service speaking three APIs from the same scripts, chosen by the request's model:
 * OpenAI's Responses API (`POST /v1/responses`, for Codex), Anthropic's Messages API (`POST
 * /v1/messages`, for Claude Code) and the Gemini API (`POST /v1beta/models/<model>:…`, for Gemini
 * CLI); each streams, or answers one JSON body when asked to. Stateless: the step is derived from
 * the conversation in each request. Every other path answers 404.
 */
export async function startMockModel(options: MockModelOptions): Promise<MockModelServer> {
  const catalog = createScriptCatalog(options);

  async function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const common = { req, res, catalog, server: options };
    const gemini = parseGeminiPath(url.pathname);
    if (url.pathname === "/v1/responses") return handleResponses(common);
    if (apiOf(url.pathname) === "anthropic") return handleAnthropic({ ...common, pathname: url.pathname });
    if (gemini) return handleGemini({ ...common, url, ...gemini });
    sendApiError({
      res,
      status: 404,
      message: `The mock model serves only ${SERVED}, not ${url.pathname}.`,
      type: "not_found",
    });
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://mock");
    options.onHttpRequest?.({ method: req.method ?? "", url: req.url ?? "/" });
    route(req, res, url).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const status = isAppError(error) ? 400 : 500;
      sendError({ api: apiOf(url.pathname) ?? "responses", res, status, message: messageOf(error) });
    });
  });
  const { port, baseUrl } = await listenHttp(server, {
    ...(options.host ? { host: options.host } : {}),
    ...(options.port ? { port: options.port } : {}),
  });
  return {
    url: `${baseUrl}/v1`,
    rootUrl: baseUrl,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
