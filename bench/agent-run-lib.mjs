// The two arms of the agent-run overhead bench, per harness: a one-step scripted run through runAgent
// (container with limits and labels, network none, in-container bridge + unix socket, model gateway
// hop, event parsing, teardown) and the same CLI invocation by hand with `docker run --rm --network
// host` straight at the mock model (the same image, the same read-only mount of the staged CLI, the
// same environment and quiet flags, only the base URL and key pointing at the mock).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import { tempDir } from "./lib.mjs";

export const KEY = "sk-bench-key";
/** The model names the script for every CLI (the mock picks the script by the request's model). */
const MODEL = "one-step";
const PROMPT = "Run the step.";
const SCRIPT = {
  usage: { inputTokens: 100, outputTokens: 10 },
  steps: [
    { kind: "run", command: "echo one step" },
    { kind: "reply", text: "done" },
  ],
};
const LIMITS = { cpus: 2, memoryBytes: 2 * 1024 ** 3, swapBytes: 0, pids: 512 };
/** Our container's limits and hardening as `docker run` options (docker-container.ts), for a direct arm that has them too. */
export const LIMIT_ARGS = [
  ...["--cpus", String(LIMITS.cpus), "--memory", String(LIMITS.memoryBytes)],
  ...["--memory-swap", String(LIMITS.memoryBytes + LIMITS.swapBytes), "--pids-limit", String(LIMITS.pids)],
  ...["--cap-drop", "ALL", "--security-opt", "no-new-privileges:true"],
];

const app = await importBundle({
  name: "agent-run-bench",
  exports: [
    'export { runAgent } from "./src/server/core/agents/agent-run.ts";',
    'export { startGatewaySocket } from "./src/server/core/agents/gateway-socket.ts";',
    'export { agentInstalls, stagePackageFiles } from "./src/server/core/agents/package-files.ts";',
    'export { CONTAINER_PATHS } from "./src/server/core/agents/harnesses/harness-module.ts";',
    'export { claudeCodeArguments, claudeCodeHarness } from "./src/server/core/agents/harnesses/claude-code.ts";',
    'export { geminiCliArguments, geminiCliHarness } from "./src/server/core/agents/harnesses/gemini-cli.ts";',
    'export { startModelGateway } from "./src/server/core/gateway/model-gateway.ts";',
    'export { startMockModel } from "./src/server/core/mock-model/mock-model-server.ts";',
    'export { createDockerRuntime } from "./src/server/core/runtime/docker-runtime.ts";',
    'export { ensureAgentImage } from "./test/support/agent-image.ts";',
  ],
});
const { CONTAINER_PATHS: PATHS } = app;

/**
 * Per harness: the job's harness for runAgent, and the same CLI by hand — its argument list, its
 * environment with the mock as the API, the folder mounted read-only for it, and a check of its output.
 */
export const HARNESSES = {
  codex: {
    harness: { kind: "codex", model: MODEL, reasoningEffort: "minimal" },
    direct: ({ mock }) => ({
      env: { MOCK_KEY: KEY, CODEX_HOME: PATHS.codexHome },
      home: PATHS.codexHome,
      install: null,
      argv: [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "-m",
        MODEL,
        "-c",
        `model_providers.mock={ name="mock", base_url="${mock.url}", env_key="MOCK_KEY", wire_api="responses", request_max_retries=0, stream_max_retries=0 }`,
        "-c",
        'model_provider="mock"',
        PROMPT,
      ],
    }),
    succeeded: (stdout) => stdout.includes('"turn.completed"'),
  },
  "claude-code": {
    harness: { kind: "claude-code", model: MODEL, instructions: "", thinkingBudget: null, reasoningEffort: null },
    direct: ({ mock, harness }) => ({
      env: {
        ...app.claudeCodeHarness.env({ ...runOf(harness), token: KEY }),
        ANTHROPIC_BASE_URL: mock.rootUrl,
      },
      home: PATHS.agentHome,
      install: path.posix.join(PATHS.agentsDir, "claude-code"),
      argv: app.claudeCodeArguments({ harness, prompt: PROMPT }),
    }),
    succeeded: (stdout) => /"type":"result"[^\n]*"is_error":false|"is_error":false[^\n]*"type":"result"/.test(stdout),
  },
  "gemini-cli": {
    harness: { kind: "gemini-cli", model: MODEL, instructions: "" },
    direct: ({ mock, harness, homePath }) => {
      app.geminiCliHarness.prepareHome(homePath, harness); // the same settings.json (telemetry off, API-key auth)
      return {
        env: {
          ...app.geminiCliHarness.env({ ...runOf(harness), token: KEY }),
          GOOGLE_GEMINI_BASE_URL: mock.rootUrl,
        },
        home: PATHS.agentHome,
        install: path.posix.join(PATHS.agentsDir, "gemini-cli"),
        argv: app.geminiCliArguments({ harness, prompt: PROMPT }),
      };
    },
    succeeded: (stdout) => /"type":"result"[^\n]*"status":"success"/.test(stdout),
  },
};

function runOf(harness) {
  return { harness, prompt: PROMPT, resumeThreadId: null, hostedTools: false };
}

/** The mock model, the gateway in front of it with its unix socket, the agent image, the staged CLIs. */
export async function startAgentBench() {
  const runtime = app.createDockerRuntime();
  const image = await app.ensureAgentImage(runtime);
  const dataDir = tempDir("data");
  const files = app.stagePackageFiles({ dataDir });
  // the direct arm shares the host network to reach the mock on loopback; ours needs no network
  const requests = []; // when each model request reached the mock, for the phases of a run
  const mock = await app.startMockModel({
    scripts: { [MODEL]: SCRIPT },
    apiKey: KEY,
    host: "127.0.0.1",
    onHttpRequest: ({ method, url }) => requests.push({ at: performance.now(), what: `${method} ${url}` }),
  });
  const gateway = await app.startModelGateway({
    upstreamBaseUrl: mock.url,
    upstreams: { anthropic: mock.rootUrl, google: mock.rootUrl },
    credential: () => ({ apiKey: KEY, source: "bench" }),
  });
  const socketDir = tempDir("gw");
  const socket = await app.startGatewaySocket({ socketPath: path.join(socketDir, "gw.sock"), gateway });
  const deps = {
    runtime,
    gateway,
    gatewaySocketPath: socket.path,
    bridgeDir: files.bridgeDir,
    publish: () => Promise.resolve(),
    worker: { id: "bench", host: os.hostname(), pid: process.pid },
    active: new Set(),
    agents: app.agentInstalls(files),
  };
  return {
    image,
    mock,
    deps,
    requests,
    async close() {
      await socket.close();
      await gateway.close();
      await mock.close();
      removeAll(dataDir, socketDir);
    },
  };
}

/**
 * A run's wall time and its phases as the mock saw them: until the first model request (container
 * start, bridge, the CLI's own start), from the first to the last request (the scripted turn, every
 * request through the gateway hop in our arm), and after the last (the CLI's exit, teardown).
 */
function timing(bench, began, ended) {
  const mine = bench.requests.filter((r) => r.at >= began && r.at <= ended);
  const first = mine[0]?.at ?? ended;
  const last = mine.at(-1)?.at ?? ended;
  return {
    ms: ended - began,
    requests: mine.map((r) => r.what),
    toFirst: first - began,
    turn: last - first,
    afterLast: ended - last,
  };
}

/** (a) One run through runAgent: its timing. */
export async function timeOurs(bench, kind, i) {
  const workspace = tempDir("ws");
  const home = tempDir("home");
  const began = performance.now();
  const result = await app.runAgent(bench.deps, {
    runId: `bench-${kind}-${i}-${Date.now()}`,
    projectId: "bench",
    image: bench.image,
    workspacePath: workspace,
    codexHomePath: home,
    harness: HARNESSES[kind].harness,
    prompt: PROMPT,
    network: "none",
    limits: LIMITS,
    timeoutMs: 120_000,
  });
  const ended = performance.now();
  if (result.outcome.status !== "succeeded")
    throw new Error(`${kind} through runAgent: ${JSON.stringify(result.outcome)}`);
  removeAll(workspace, home);
  return timing(bench, began, ended);
}

/**
 * (b) The same CLI by hand: `docker run --rm --network host` at the mock; its timing. `dockerArgs`:
 * more `docker run` options, to find out which of our container's settings costs what.
 */
export async function timeDirect(bench, kind, dockerArgs = []) {
  const workspace = tempDir("ws");
  const homePath = tempDir("home");
  const staged = bench.deps.agents[kind]?.hostDir ?? null;
  const spec = HARNESSES[kind].direct({ mock: bench.mock, harness: HARNESSES[kind].harness, homePath });
  const args = ["run", "--rm", "--network", "host", "--init", "-w", PATHS.workspace, ...dockerArgs];
  for (const [name, value] of Object.entries(spec.env)) args.push("-e", `${name}=${value}`);
  args.push("-v", `${workspace}:${PATHS.workspace}`, "-v", `${homePath}:${spec.home}`);
  if (spec.install) args.push("-v", `${staged}:${spec.install}:ro`);
  const began = performance.now();
  const result = await run("docker", [...args, bench.image, ...spec.argv]);
  const ended = performance.now();
  if (result.status !== 0 || !HARNESSES[kind].succeeded(result.stdout))
    throw new Error(`${kind} by hand failed (${result.status}): ${result.stderr}\n${result.stdout.slice(-2000)}`);
  removeAll(workspace, homePath);
  return timing(bench, began, ended);
}

function removeAll(...dirs) {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}

/** Async on purpose: the mock model answers from this process, so the event loop must keep running. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
