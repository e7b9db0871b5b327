import path from "node:path";
import { createDockerRuntime } from "../../src/server/core/runtime/docker-runtime";
import { startModelGateway, type GatewayRequestSeen } from "../../src/server/core/gateway/model-gateway";
import { startMockModel, type MockModelRequest } from "../../src/server/core/mock-model/mock-model-server";
import type { MockScriptInput } from "../../src/server/core/mock-model/mock-script";
import type { AgentRunDeps, AgentRunInput } from "../../src/server/core/agents/agent-run";
import type { Harness } from "../../src/server/core/agents/harness";
import { startGatewaySocket } from "../../src/server/core/agents/gateway-socket";
import { agentInstalls, stagePackageFiles } from "../../src/server/core/agents/package-files";
import { AGENT_IMAGE, ensureAgentImage } from "./agent-image";
import { tempDir } from "./temp";

/**
 * The real things an agent CLI run needs, for tests that watch what it sends: the agent image, the
 * scripted mock model speaking every API (it checks the real key), the model gateway in front of it
 * (every request it receives recorded, before any check) and the containers' gateway socket.
 */
export async function startAgentCliFixture(scripts: Record<string, MockScriptInput>) {
  const key = `sk-test-FIXTURE-${Math.random().toString(36).slice(2)}`;
  const runtime = createDockerRuntime();
  await ensureAgentImage(runtime);
  const seen: GatewayRequestSeen[] = [];
  const reached: MockModelRequest[] = [];
  const mockHttp: { method: string; url: string }[] = [];
  const mock = await startMockModel({
    scripts,
    apiKey: key,
    onRequest: (r) => reached.push(r),
    onHttpRequest: (r) => mockHttp.push(r),
  });
  const gateway = await startModelGateway({
    upstreamBaseUrl: mock.url,
    upstreams: { anthropic: mock.rootUrl, google: mock.rootUrl },
    credential: () => ({ kind: "api-key", apiKey: key }),
    onRequest: (r) => seen.push(r),
  });
  const socket = await startGatewaySocket({ socketPath: path.join(tempDir("gateway"), "gateway.sock"), gateway });
  const files = stagePackageFiles({ dataDir: tempDir("agent-cli-data"), codex: null });
  const deps: AgentRunDeps = {
    runtime,
    gateway,
    gatewaySocketPath: socket.path,
    bridgeDir: files.bridgeDir,
    publish: () => Promise.resolve(),
    worker: { id: "test-worker", host: "test-host", pid: process.pid },
    active: new Set(),
    agents: agentInstalls(files),
  };
  return {
    key,
    deps,
    gateway,
    /** Every request the gateway received (any run, any path), in order. */
    seen,
    /** The model requests the mock answered from a script, and every HTTP request it received. */
    reached,
    mockHttp,
    /** A run of `harness` in a fresh workspace and home, in network mode none. */
    input(harness: Harness, name: string): AgentRunInput {
      return {
        runId: `run-${name}-${Math.random().toString(36).slice(2)}`,
        projectId: "p-agent-cli",
        image: AGENT_IMAGE,
        workspacePath: tempDir(`${name}-workspace`),
        codexHomePath: tempDir(`${name}-home`),
        harness,
        prompt: "Do the task.",
        network: "none",
        limits: { cpus: 1, memoryBytes: 2 * 1024 ** 3, swapBytes: 0, pids: 512 },
        timeoutMs: 180_000,
      };
    },
    async close() {
      await socket.close();
      await gateway.close();
      await mock.close();
    },
  };
}
export type AgentCliFixture = Awaited<ReturnType<typeof startAgentCliFixture>>;
