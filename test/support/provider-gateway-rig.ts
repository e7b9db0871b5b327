import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  startMockModel,
  type MockModelRequest,
  type MockModelServer,
} from "../../src/server/core/mock-model/mock-model-server";
import type { MockScriptInput } from "../../src/server/core/mock-model/mock-script";
import type { TokenUsage } from "../../src/shared/token-usage";
import {
  startModelGateway,
  type ModelGateway,
  type ModelGatewayOptions,
} from "../../src/server/core/gateway/model-gateway";

/**
 * Test support for the gateway's Anthropic and Gemini APIs: the bundled mock model as each provider's
 * upstream (one mock per provider, each expecting only that provider's key, so a key sent to the wrong
 * provider is refused there), and requests as Claude Code and Gemini CLI send them. Loopback only.
 */
export const ANTHROPIC_KEY = "sk-ant-test-REAL-anthropic-0001";
export const GOOGLE_KEY = "AIza-test-REAL-google-0002";
export const OPENAI_KEY = "sk-test-REAL-openai-0003";
export const USAGE = { inputTokens: 1800, cachedInputTokens: 600, outputTokens: 200, reasoningTokens: 50 };
export const SCRIPTS: Record<string, MockScriptInput> = {
  done: { steps: [{ kind: "reply", text: "done" }], usage: USAGE },
  other: { steps: [{ kind: "reply", text: "other" }], usage: USAGE },
  cut: { steps: [{ kind: "cut", mode: "close", partialText: "half of it" }], usage: USAGE },
};

export interface ProviderRig {
  gateway: ModelGateway;
  /** The gateway's root URL (no `/v1`). */
  root: string;
  anthropic: MockModelServer;
  google: MockModelServer;
  /** Model requests each mock answered, and every URL it received. */
  seen: { anthropic: MockModelRequest[]; google: MockModelRequest[]; urls: string[] };
  logs: string[];
  usageEvents: { runId: string; usage: TokenUsage }[];
  exceeded: { runId: string; usedTokens: number; budgetTokens: number }[];
  close(): Promise<void>;
}

export async function startProviderRig(extra: Partial<ModelGatewayOptions> = {}): Promise<ProviderRig> {
  const seen: ProviderRig["seen"] = { anthropic: [], google: [], urls: [] };
  const onHttpRequest = (request: { url: string }) => seen.urls.push(request.url);
  const anthropic = await startMockModel({
    scripts: SCRIPTS,
    apiKey: ANTHROPIC_KEY,
    onRequest: (r) => seen.anthropic.push(r),
    onHttpRequest,
  });
  const google = await startMockModel({
    scripts: SCRIPTS,
    apiKey: GOOGLE_KEY,
    onRequest: (r) => seen.google.push(r),
    onHttpRequest,
  });
  const logs: string[] = [];
  const usageEvents: ProviderRig["usageEvents"] = [];
  const exceeded: ProviderRig["exceeded"] = [];
  const gateway = await startModelGateway({
    upstreamBaseUrl: "http://127.0.0.1:9/v1", // never used: no OpenAI request in these tests
    upstreams: { anthropic: anthropic.rootUrl, google: google.rootUrl },
    credential: (provider) => ({
      kind: "api-key",
      apiKey: { openai: OPENAI_KEY, anthropic: ANTHROPIC_KEY, google: GOOGLE_KEY }[provider],
    }),
    log: (line) => logs.push(line),
    onUsage: ({ runId, usage }) => usageEvents.push({ runId, usage }),
    onBudgetExceeded: (event) => exceeded.push(event),
    ...extra,
  });
  return {
    gateway,
    root: gateway.url.replace(/\/v1$/, ""),
    anthropic,
    google,
    seen,
    logs,
    usageEvents,
    exceeded,
    async close() {
      await gateway.close();
      await anthropic.close();
      await google.close();
    },
  };
}

/** A Messages API request as Claude Code sends it (`?beta=true`, the token as `x-api-key`). */
export function askClaude(options: {
  root: string;
  token: string;
  body: Record<string, unknown>;
  path?: string;
  headers?: Record<string, string>;
}): Promise<Response> {
  return fetch(`${options.root}${options.path ?? "/v1/messages?beta=true"}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": options.token,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
      ...options.headers,
    },
    body: JSON.stringify(options.body),
  });
}

export const claudeTurn = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 1024,
  stream: true,
  messages: [{ role: "user", content: "fix it" }],
  tools: [{ name: "Bash", description: "run", input_schema: { type: "object", properties: {} } }],
  ...extra,
});

/** A Gemini API request as Gemini CLI sends it (the token as `x-goog-api-key`, or `?key=`). */
export function askGemini(options: {
  root: string;
  token: string;
  model: string;
  method?: string;
  query?: string;
  body?: Record<string, unknown>;
  tokenIn?: "header" | "query";
}): Promise<Response> {
  const method = options.method ?? "streamGenerateContent";
  const query = new URLSearchParams(options.query ?? (method === "streamGenerateContent" ? "alt=sse" : ""));
  if (options.tokenIn === "query") query.set("key", options.token);
  const search = query.toString() === "" ? "" : `?${query.toString()}`;
  return fetch(`${options.root}/v1beta/models/${options.model}:${method}${search}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.tokenIn === "query" ? {} : { "x-goog-api-key": options.token }),
    },
    body: JSON.stringify(options.body ?? geminiTurn()),
  });
}

export const geminiTurn = (extra: Record<string, unknown> = {}) => ({
  contents: [{ role: "user", parts: [{ text: "fix it" }] }],
  tools: [{ functionDeclarations: [{ name: "run_shell_command", parameters: { type: "object" } }] }],
  ...extra,
});

/** A plain loopback upstream for answers the mock does not give (an error echoing the key). */
export async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
