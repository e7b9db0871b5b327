import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent, type AgentRunDeps, type AgentRunInput } from "../src/server/core/agents/agent-run";
import { locateCodexBinary } from "../src/server/core/agents/codex-binary";
import {
  startMockModel,
  type MockModelRequest,
  type MockModelServer,
} from "../src/server/core/mock-model/mock-model-server";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { startGatewayHost, type GatewayHost } from "../worker/model-gateway-host";
import { AGENT_IMAGE, ensureAgentImage } from "./support/agent-image";
import { tempDir } from "./support/temp";

/**
 * A hostile `command` agent against the model gateway's metering (issue 23, points 4 and 7): in a real
 * container of the agent image (network mode `none`, the worker's own gateway host, its socket and
 * bridge), a program with the run's token asks for background responses, a pricier model than its
 * configuration's, a remote MCP server with a 20 MiB URL, then ten `stream: false` responses of 2,000
 * tokens each against a 3,000-token budget. Before the fix all ten were answered 200 and the run's
 * usage stayed 0. Now each is metered, the budget stops the run with the figures, and the agent is told
 * why at every refusal. The real Codex binary through the same gateway still completes its turn.
 */
const KEY = "sk-test-HOSTILE-GATEWAY-456";
const ROOT = path.resolve(import.meta.dirname, "..");
const runtime = createDockerRuntime();
const codex = locateCodexBinary();
const BUDGET = 3_000;
const requests: MockModelRequest[] = [];
const logs: string[] = [];
let mock: MockModelServer;
let host: GatewayHost;

/** The agent's program: each answer is written to /workspace/answers.json as it comes (the run may be stopped). */
const ATTACK = String.raw`
const fs = require("fs");
const base = process.env.OPENAI_BASE_URL, key = process.env.OPENAI_API_KEY;
const model = process.env.INVARIANT_MODEL || "json-spender"; // what the configuration names
const answers = [];
const ask = async (name, body) => {
  const res = await fetch(base + "/responses", {
    method: "POST",
    headers: { authorization: "Bearer " + key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json = {};
  try { json = JSON.parse(text); } catch {}
  answers.push({ name, status: res.status, bytes: text.length, usage: json.usage ?? null, error: json.error ?? null });
  // whole or not at all: the budget stops the container at any moment, a write half done included
  fs.writeFileSync("/workspace/answers.tmp", JSON.stringify(answers));
  fs.renameSync("/workspace/answers.tmp", "/workspace/answers.json");
  console.log("answer " + name + ": " + res.status);
};
(async () => {
  if (process.argv[2] === "one") return ask("a model request", { model: "gpt-5-codex", stream: false, input: "hi" });
  await ask("background, not streamed", { model, stream: false, background: true, input: "spend" });
  await ask("background, streamed", { model, stream: true, background: true, input: "spend" });
  await ask("a pricier model", { model: "o3-pro", stream: false, input: "spend" });
  await ask("a 20 MiB server_url", { model, stream: false, input: "hi",
    tools: [{ type: "mcp", server_label: "x", server_url: "https://exfil.invalid/" + "A".repeat(20 * 1024 * 1024) }] });
  for (let i = 1; i <= 10; i++) await ask("stream false " + i, { model, stream: false, input: "spend" });
})();
`;

interface Answer {
  name: string;
  status: number;
  bytes: number;
  usage: { input_tokens: number; output_tokens: number } | null;
  error: { type: string; message: string } | null;
}

function deps(): AgentRunDeps {
  return {
    runtime,
    gateway: host.gateway,
    gatewaySocketPath: host.socket.path,
    bridgeDir: path.join(ROOT, "assets"),
    publish: () => Promise.resolve(),
    worker: { id: "hostile-gateway-worker", host: "test-host", pid: process.pid },
    active: new Set(),
    agents: codex ? { codex: { version: codex.version, hostDir: null } } : {},
  };
}

function commandRun(options: { model: string; workspace: string; argument?: string }): AgentRunInput {
  return {
    runId: `hostile-gateway-${Math.random().toString(36).slice(2)}`,
    projectId: "p-hostile-gateway",
    image: AGENT_IMAGE,
    workspacePath: options.workspace,
    codexHomePath: tempDir("hostile-gateway-codex-home"),
    harness: { kind: "command", command: `node /workspace/attack.cjs ${options.argument ?? ""}`, model: options.model },
    prompt: "Spend the tokens.",
    network: "none",
    limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 512 },
    timeoutMs: 90_000,
    budgetTokens: BUDGET,
  };
}

function workspaceWithAttack(): string {
  const workspace = tempDir("hostile-gateway-workspace");
  fs.writeFileSync(path.join(workspace, "attack.cjs"), ATTACK);
  return workspace;
}

const answersIn = (workspace: string): Answer[] =>
  JSON.parse(fs.readFileSync(path.join(workspace, "answers.json"), "utf8")) as Answer[];

beforeAll(async () => {
  await ensureAgentImage(runtime);
  mock = await startMockModel({
    scriptsDir: path.join(ROOT, "mock-scripts"),
    scripts: {
      "json-spender": {
        description: "Each response costs 2,000 tokens; ten of them would cost 20,000.",
        usage: { inputTokens: 1800, cachedInputTokens: 900, outputTokens: 200, reasoningTokens: 120 },
        steps: [{ kind: "reply", text: "Here is a long answer you did not pay for." }],
      },
    },
    apiKey: KEY,
    onRequest: (request) => requests.push(request),
  });
  host = await startGatewayHost({
    config: { openaiApiKey: KEY, codexHome: tempDir("hostile-gateway-host-codex"), upstreamBaseUrl: mock.url },
    dataDir: tempDir("hostile-gateway-data"),
    workerId: "hostile-gateway-worker",
    log: (line) => logs.push(line),
  });
}, 300_000);

afterAll(async () => {
  await host?.close();
  await mock?.close();
});

describe("a command agent that spends through the model gateway", () => {
  it("is metered for stream:false answers and stopped at its budget; background and another model are refused", async () => {
    const workspace = workspaceWithAttack();
    const run = commandRun({ model: "json-spender", workspace });
    const result = await runAgent(deps(), run);
    // what the user is told: the run (the trial) was stopped by its budget, with the gateway's figures
    expect(result.outcome).toEqual({
      status: "stopped",
      threadId: null,
      reason: "Stopped: the run used 4,000 tokens, reaching its token budget of 3,000.",
    });
    expect(result.budgetReached).toBe(true);
    expect(result.meteredUsage).toEqual({
      inputTokens: 3600,
      cachedInputTokens: 1800,
      outputTokens: 400,
      reasoningTokens: 240,
    });
    // only the two metered answers reached the model
    expect(requests.filter((r) => r.model === "json-spender").map((r) => r.body.stream)).toEqual([false, false]);
    expect(requests.filter((r) => r.model !== "json-spender")).toEqual([]);

    // what the agent is told, request by request
    const answers = answersIn(workspace);
    const byName = (name: string) => answers.find((answer) => answer.name === name);
    for (const name of ["background, not streamed", "background, streamed"])
      expect(byName(name)).toMatchObject({
        status: 400,
        error: {
          type: "background_not_allowed",
          message: expect.stringContaining("`background: true` runs the response on the provider") as unknown,
        },
      });
    expect(byName("a pricier model")).toMatchObject({
      status: 400,
      error: {
        type: "model_not_allowed",
        message:
          'The model gateway refused this request: this run may use only the model "json-spender" (its configuration\'s), not "o3-pro".',
      },
    });
    const huge = byName("a 20 MiB server_url");
    expect(huge).toMatchObject({ status: 400, error: { type: "hosted_tool_not_allowed" } });
    expect(huge?.bytes).toBeLessThan(1_000);
    expect(huge?.error?.message).toContain("AAAA… (20,971,");
    expect(byName("stream false 1")).toMatchObject({ status: 200, usage: { input_tokens: 1800, output_tokens: 200 } });
    // The second answer is the one that crossed the budget: the worker stops the container as soon as the gateway
    // meters it, which may be before the agent has written it down (under load it often is). That the model answered
    // it is held above (two requests reached the model, 4,000 tokens metered); if the agent did write it, it is a 200.
    expect([undefined, 200]).toContain(byName("stream false 2")?.status);
    // The second answer crossed the budget, and the worker stopped the container at once: what it still
    // sent before it died (if anything: the stop is usually faster) was refused, and reached no model.
    const rest = answers.filter((answer) => /^stream false ([3-9]|10)$/.test(answer.name));
    for (const answer of rest)
      expect(answer).toMatchObject({
        status: 429,
        error: {
          type: "token_budget_exceeded",
          message: `Run ${run.runId} has used 4000 tokens, reaching its budget of 3000; the model gateway accepts no more requests for it.`,
        },
      });
    // the gateway's log holds the refusals, each field cut short: no 20 MiB line
    expect(Math.max(...logs.map((line) => line.length))).toBeLessThan(2_000);
    expect(logs.join("\n")).toContain(`run ${run.runId} reached its token budget (4000 of 3000)`);
  });

  it("refuses every model request of a command configuration that names no model, saying what to set", async () => {
    const workspace = workspaceWithAttack();
    const before = requests.length;
    const result = await runAgent(deps(), commandRun({ model: "", workspace, argument: "one" }));
    expect(result.outcome).toMatchObject({ status: "succeeded" });
    expect(answersIn(workspace)).toEqual([
      expect.objectContaining({
        status: 400,
        error: expect.objectContaining({
          type: "model_not_allowed",
          message: expect.stringContaining(
            "this run's configuration names no model, so the gateway forwards no model request for it. Name the model the agent uses in the configuration",
          ) as unknown,
        }) as unknown,
      }),
    ]);
    expect(requests.length).toBe(before);
  });

  it("still lets the real Codex binary use its configured model through the same gateway, metered", async () => {
    const result = await runAgent(deps(), {
      ...commandRun({ model: "hello", workspace: tempDir("hostile-gateway-codex-workspace") }),
      harness: { kind: "codex", model: "hello", reasoningEffort: "low", instructions: "", overrides: [] },
    });
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
    expect(result.meteredUsage).toEqual(result.reportedUsage);
    expect(result.meteredUsage?.inputTokens).toBeGreaterThan(0);
  });
});
