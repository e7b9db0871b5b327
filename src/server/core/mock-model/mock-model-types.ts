import type http from "node:http";
import type { AnthropicRequest } from "./anthropic-request";
import type { GeminiRequest } from "./gemini-request";
import type { MockScriptInput } from "./mock-script";
import type { ResponsesRequest } from "./responses-request";

/** Options and request reports of the mock model (mock-model-server.ts), apart so that every API's route can take them. */
export interface MockModelOptions {
  /** Directory of `<name>.json` scripts, read on each request. */
  scriptsDir?: string;
  /** Scripts by name, checked before `scriptsDir` (tests). */
  scripts?: Record<string, MockScriptInput>;
  host?: string;
  port?: number;
  /**
   * When set, requests must carry it (proves a gateway swapped its token): `Authorization: Bearer`
   * for Responses, `x-api-key` (or Bearer) for Anthropic, `x-goog-api-key` (or `?key=`) for Gemini.
   */
  apiKey?: string;
  /** Called for every model request that names a script, before it is answered. */
  onRequest?: (request: MockModelRequest) => void;
  /** Called for every HTTP request the server receives, whatever its path (tests: what a client sent). */
  onHttpRequest?: (request: { method: string; url: string }) => void;
}

export type MockModelApi = "responses" | "anthropic" | "gemini";

export interface MockModelRequest {
  api: MockModelApi;
  model: string;
  stepIndex: number;
  headers: http.IncomingHttpHeaders;
  body: ResponsesRequest | AnthropicRequest | GeminiRequest;
}
