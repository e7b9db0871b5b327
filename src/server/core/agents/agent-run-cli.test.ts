import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, REPO_ROOT } from "../../../../test/support/temp";
import { AGENT_IMAGE, ensureAgentImage } from "../../../../test/support/agent-image";
import type { TokenUsage } from "../../../shared/token-usage";
import { startModelGateway, type ModelGateway } from "../gateway/model-gateway";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import type { MockScriptInput } from "../mock-model/mock-script";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { runAgent, stopRun, type AgentRunDeps, type AgentRunInput } from "./agent-run";
import type { CodexEvent } from "./codex-events";
import type { Harness } from "./harness";
import { agentInstalls, stagePackageFiles } from "./package-files";
import { startGatewaySocket, type GatewaySocket } from "./gateway-socket";

/**
 * The real Claude Code binary and the real Gemini CLI (on its own Node.js), staged from the package
 * and mounted read-only into a real container of the agent image, through the model gateway (unix
 * socket, no network) to the scripted mock model: the file lands in the workspace, the events come
 * through, the gateway meters the script's usage, and a second run resumes the same conversation.
 */
const KEY = "sk-test-CLI-HARNESS-456";
const runtime = createDockerRuntime();
const USAGE: TokenUsage = { inputTokens: 300, cachedInputTokens: 100, outputTokens: 40, reasoningTokens: 0 };
const SCRIPT: MockScriptInput = {
  usage: USAGE,
  steps: [
    { kind: "write-file", path: "NOTES.md", content: "Written by the mock model through the agent CLI.\n" },
    { kind: "run", command: "test -f NOTES.md && exit 3" },
    { kind: "reply", text: "I wrote NOTES.md." },
    { kind: "run", command: "printf '%s\\n' 'Second run was here.' >> NOTES.md" },
    { kind: "reply", text: "I appended to NOTES.md in the second run." },
  ],
};

let mock: MockModelServer;
let gateway: ModelGateway;
let socket: GatewaySocket;
let dataDir: string;
const requests: MockModelRequest[] = [];

function deps(events: CodexEvent[]): AgentRunDeps {
  const files = stagePackageFiles({ dataDir, codex: null });
  return {
    runtime,
    gateway,
    gatewaySocketPath: socket.path,
    bridgeDir: files.bridgeDir,
    publish: () => Promise.resolve(),
    worker: { id: "test-worker", host: "test-host", pid: process.pid },
    active: new Set(),
    agents: agentInstalls(files),
    onEvent: (event) => events.push(event),
  };
}

function input(harness: Harness, name: string): AgentRunInput {
  return {
    runId: `run-${name}-${Math.random().toString(36).slice(2)}`,
    projectId: "p-agent-cli",
    image: AGENT_IMAGE,
    workspacePath: tempDir(`${name}-workspace`),
    codexHomePath: tempDir(`${name}-home`),
    harness,
    prompt: "--fix the notes, please",
    network: "none",
    limits: { cpus: 1, memoryBytes: 2 * 1024 ** 3, swapBytes: 0, pids: 512 },
    timeoutMs: 120_000,
  };
}

const ofType = <T extends CodexEvent["type"]>(events: CodexEvent[], type: T) =>
  events.filter((e): e is Extract<CodexEvent, { type: T }> => e.type === type);
const twice = (usage: TokenUsage) => ({
  inputTokens: usage.inputTokens * 2,
  cachedInputTokens: usage.cachedInputTokens * 2,
  outputTokens: usage.outputTokens * 2,
  reasoningTokens: usage.reasoningTokens * 2,
});
const packageVersion = (pkg: string) =>
  (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", pkg, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

beforeAll(async () => {
  await ensureAgentImage(runtime);
  dataDir = tempDir("agent-cli-data");
  mock = await startMockModel({
    scripts: { "cli-notes": SCRIPT, "claude-sonnet-4-5": SCRIPT },
    apiKey: KEY,
    onRequest: (r) => requests.push(r),
  });
  gateway = await startModelGateway({
    upstreamBaseUrl: mock.url,
    upstreams: { anthropic: mock.rootUrl, google: mock.rootUrl },
    credential: () => ({ apiKey: KEY, source: "test" }),
    onBudgetExceeded: ({ runId }) => stopRun(runId, "Stopped: past its budget."),
  });
  socket = await startGatewaySocket({ socketPath: path.join(tempDir("gateway"), "gateway.sock"), gateway });
}, 300_000);

afterAll(async () => {
  await socket?.close();
  await gateway?.close();
  await mock?.close();
});

const CASES: {
  name: string;
  harness: Harness;
  api: MockModelRequest["api"];
  pkg: string;
  exitCodes: (number | null)[];
  /** What the CLI's first request carries from the configuration besides the task. */
  firstRequest: Record<string, unknown>;
}[] = [
  {
    name: "Claude Code",
    harness: {
      kind: "claude-code",
      // a model Claude Code knows to take a thinking budget (it runs names it does not know adaptively)
      model: "claude-sonnet-4-5",
      instructions: "Keep notes short.",
      thinkingBudget: 2048,
      reasoningEffort: null,
    },
    api: "anthropic",
    pkg: "@anthropic-ai/claude-code",
    exitCodes: [0, 3],
    // the thinking budget reaches the model through MAX_THINKING_TOKENS
    firstRequest: { model: "claude-sonnet-4-5", thinking: { type: "enabled", budget_tokens: 2048 } },
  },
  {
    // Gemini CLI reports an exit code only for a failing command that printed nothing (the second)
    name: "Gemini CLI",
    harness: { kind: "gemini-cli", model: "cli-notes", instructions: "Keep notes short." },
    api: "gemini",
    pkg: "@google/gemini-cli",
    exitCodes: [null, 3],
    firstRequest: { systemInstruction: expect.anything() as unknown },
  },
];

describe.each(CASES)(
  "$name runs headless in an agent container",
  ({ name, harness, api, pkg, exitCodes, firstRequest }) => {
    it("writes the file, reports its events and metered usage, and a second run resumes the session", async () => {
      const events: CodexEvent[] = [];
      const run = input(harness, name.replace(" ", "-").toLowerCase());
      const first = await runAgent(deps(events), run);
      expect(first.outcome, JSON.stringify({ outcome: first.outcome, events })).toMatchObject({ status: "succeeded" });
      expect(fs.readFileSync(path.join(run.workspacePath, "NOTES.md"), "utf8")).toBe(
        "Written by the mock model through the agent CLI.\n",
      );
      expect(first.harnessVersion).toBe(packageVersion(pkg));
      expect(first.threadId).toMatch(/^[0-9a-f-]{36}$/);
      expect(ofType(events, "thread.started")).toEqual([{ v: 1, type: "thread.started", threadId: first.threadId }]);
      expect(ofType(events, "command.finished").map((c) => c.exitCode)).toEqual(exitCodes);
      expect(ofType(events, "agent.message").at(-1)?.text).toBe("I wrote NOTES.md.");
      // three model responses of the script's usage: what the gateway metered, and what the CLI reported
      expect(first.meteredUsage).toEqual({
        inputTokens: 3 * USAGE.inputTokens,
        cachedInputTokens: 3 * USAGE.cachedInputTokens,
        outputTokens: 3 * USAGE.outputTokens,
        reasoningTokens: 0,
      });
      expect(first.reportedUsage).toEqual(first.meteredUsage);
      const mine = requests.filter((r) => r.api === api);
      expect(mine[0]?.body).toMatchObject(firstRequest);
      expect(JSON.stringify(mine[0]?.body)).toContain("--fix the notes, please");
      expect(JSON.stringify(mine[0]?.body)).toContain("Keep notes short.");
      // the token reached the mock only as the gateway's real key: the mock checks it (apiKey)
      if (api === "gemini") {
        // network none without hosted tools: Gemini CLI is not offered Google Search or URL fetching
        const tools = (mine[0]?.body as { tools?: { functionDeclarations?: { name: string }[] }[] }).tools ?? [];
        const names = tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name));
        expect(names).toContain("run_shell_command");
        expect(names.filter((name) => name === "google_web_search" || name === "web_fetch")).toEqual([]);
      }

      const before = requests.length;
      const resumedEvents: CodexEvent[] = [];
      const second = await runAgent(deps(resumedEvents), {
        ...run,
        runId: `${run.runId}-2`,
        resumeThreadId: first.threadId,
        threadUsageBefore: first.reportedUsage,
        prompt: "Continue.",
      });
      expect(second.outcome, JSON.stringify(second.outcome)).toMatchObject({ status: "succeeded" });
      expect(second.threadId).toBe(first.threadId);
      expect(fs.readFileSync(path.join(run.workspacePath, "NOTES.md"), "utf8")).toContain("Second run was here.");
      // the model sees the earlier turns: the first run's reply is in the resumed conversation
      expect(JSON.stringify(requests[before]?.body)).toContain("I wrote NOTES.md.");
      expect(second.meteredUsage).toEqual(twice(USAGE));
      // the real key stays out of the agent home (the CLI's config and conversations)
      const home = fs.readdirSync(run.codexHomePath, { recursive: true, withFileTypes: true });
      for (const entry of home.filter((e) => e.isFile()))
        expect(fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")).not.toContain(KEY);
      expect(ofType(resumedEvents, "token.usage").at(-1)).toMatchObject({
        run: twice(USAGE),
        thread: { inputTokens: 5 * USAGE.inputTokens },
      });
    }, 300_000);
  },
);

describe.each(CASES)("$name past its token budget", ({ harness, name }) => {
  it("is stopped by the gateway's budget: the next request is refused and the container stopped", async () => {
    const run = input(harness, `budget-${name.replace(" ", "-").toLowerCase()}`);
    // one model response of the script's usage reaches the budget
    const result = await runAgent(deps([]), { ...run, budgetTokens: USAGE.inputTokens + USAGE.outputTokens });
    expect(result.budgetReached).toBe(true);
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({
      status: "stopped",
      reason: "Stopped: past its budget.",
    });
    // never the whole script's three responses
    expect(result.meteredUsage?.inputTokens ?? 0).toBeLessThan(3 * USAGE.inputTokens);
  }, 300_000);
});

describe("a worker without the CLI", () => {
  it("refuses the run with what to install, before it starts a container", async () => {
    const run = input(CASES[0]!.harness, "missing");
    await expect(runAgent({ ...deps([]), agents: {} }, run)).rejects.toThrow(
      /Claude Code is not available on this worker\. Reinstall invariant-web's dependencies \(npm install\)/,
    );
  });
});

describe("a scripted: model", () => {
  it("runs Claude Code and Gemini CLI against the bundled scripted model, with no provider signed in", async () => {
    const scripted = await startMockModel({ scripts: { "cli-notes": SCRIPT } });
    const offline = await startModelGateway({
      upstreamBaseUrl: "http://127.0.0.1:9/v1",
      upstreams: { anthropic: "http://127.0.0.1:9", google: "http://127.0.0.1:9" },
      scriptedBaseUrl: scripted.rootUrl,
      credential: () => null,
    });
    const offlineSocket = await startGatewaySocket({
      socketPath: path.join(tempDir("scripted-gateway"), "gateway.sock"),
      gateway: offline,
    });
    try {
      const scriptedDeps = { ...deps([]), gateway: offline, gatewaySocketPath: offlineSocket.path };
      const claude = input({ ...CASES[0]!.harness, model: "scripted:cli-notes" }, "scripted-claude");
      const gemini = input({ ...CASES[1]!.harness, model: "scripted:cli-notes" }, "scripted-gemini");
      for (const run of [claude, gemini]) {
        const result = await runAgent(scriptedDeps, run);
        expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
        expect(fs.existsSync(path.join(run.workspacePath, "NOTES.md"))).toBe(true);
        expect(result.meteredUsage?.inputTokens).toBe(3 * USAGE.inputTokens);
      }
    } finally {
      await offlineSocket.close();
      await offline.close();
      await scripted.close();
    }
  }, 300_000);
});
