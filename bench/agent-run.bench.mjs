// Harness overhead around a one-step scripted Codex run: our agent run (container with limits and
// labels, gateway bridge in the container, unix socket, model gateway hop, event parsing, teardown)
// vs the same `codex exec` started with `docker run --rm` straight against the mock model.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importSource } from "./bundle.mjs";
import { median, ROOT, tempDir, writeResult } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const KEY = "sk-bench-key";
const { runAgent } = await importSource("src/server/core/agents/agent-run.ts");
const { startGatewaySocket } = await importSource("src/server/core/agents/gateway-socket.ts");
const { startModelGateway } = await importSource("src/server/core/gateway/model-gateway.ts");
const { startMockModel } = await importSource("src/server/core/mock-model/mock-model-server.ts");
const { createDockerRuntime } = await importSource("src/server/core/runtime/docker-runtime.ts");
const { ensureAgentImage } = await importSource("test/support/agent-image.ts");

const runtime = createDockerRuntime();
const image = await ensureAgentImage(runtime);
const script = {
  usage: { inputTokens: 100, outputTokens: 10 },
  steps: [
    { kind: "run", command: "echo one step" },
    { kind: "reply", text: "done" },
  ],
};
// the baseline container shares the host network to reach the mock on loopback; ours needs no network
const mock = await startMockModel({ scripts: { "one-step": script }, apiKey: KEY, host: "127.0.0.1" });
const gateway = await startModelGateway({
  upstreamBaseUrl: mock.url,
  credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
});
const socket = await startGatewaySocket({ socketPath: path.join(tempDir("gw"), "gw.sock"), gateway });
const limits = { cpus: 2, memoryBytes: 2 * 1024 ** 3, swapBytes: 0, pids: 512 };
const prompt = "Run the step.";

async function ours(i) {
  const began = performance.now();
  const result = await runAgent(
    {
      runtime,
      gateway,
      gatewaySocketPath: socket.path,
      bridgeDir: path.join(ROOT, "assets"),
      publish: () => Promise.resolve(),
      worker: { id: "bench", host: os.hostname(), pid: process.pid },
      active: new Set(),
      agents: {},
    },
    {
      runId: `bench-${i}-${Date.now()}`,
      projectId: "bench",
      image,
      workspacePath: tempDir("ws"),
      codexHomePath: tempDir("ch"),
      harness: { kind: "codex", model: "one-step", reasoningEffort: "minimal" },
      prompt,
      network: "none",
      limits,
      timeoutMs: 120_000,
    },
  );
  if (result.outcome.status !== "succeeded") throw new Error(JSON.stringify(result.outcome));
  return performance.now() - began;
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

async function baseline() {
  const workspace = tempDir("ws");
  const codexHome = tempDir("ch");
  const began = performance.now();
  const provider = `model_providers.mock={ name="mock", base_url="${mock.url}", env_key="MOCK_KEY", wire_api="responses", request_max_retries=0, stream_max_retries=0 }`;
  const result = await run("docker", [
    "run",
    "--rm",
    "--network",
    "host",
    "--init",
    "-e",
    `MOCK_KEY=${KEY}`,
    "-e",
    "CODEX_HOME=/ch",
    "-v",
    `${codexHome}:/ch`,
    "-v",
    `${workspace}:/workspace`,
    "-w",
    "/workspace",
    image,
    "codex",
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    "-m",
    "one-step",
    "-c",
    provider,
    "-c",
    'model_provider="mock"',
    prompt,
  ]);
  if (result.status !== 0 || !result.stdout.includes("turn.completed"))
    throw new Error(`baseline failed: ${result.stderr}`);
  fs.rmSync(workspace, { recursive: true, force: true });
  return performance.now() - began;
}

await ours(-1); // warm up both paths
await baseline();
const oursMs = [];
const baselineMs = [];
for (let i = 0; i < RUNS; i++) {
  oursMs.push(await ours(i));
  baselineMs.push(await baseline());
}
await socket.close();
await gateway.close();
await mock.close();
writeResult({
  name: "agent-run-overhead",
  unit: "ms",
  value: Math.round(median(oursMs)),
  baseline: Math.round(median(baselineMs)),
  notes: `median of ${RUNS}, interleaved: a one-step scripted Codex run through runAgent (container, bridge, unix socket, gateway, event parsing, teardown) vs \`docker run --rm --network host\` of the same codex exec straight at the mock. Target ≤ 1.3×.`,
});
