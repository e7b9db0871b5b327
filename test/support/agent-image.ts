import { execFileSync } from "node:child_process";
import { BASE_IMAGE } from "./environment-harness";
import { locateCodexBinary } from "../../src/server/core/agents/codex-binary";
import { prepareEnvironment } from "../../src/server/core/environments/environment-builder";
import { LABEL } from "../../src/server/core/runtime/container-spec";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";

function imageEnv(image: string): string[] {
  const out = execFileSync("docker", ["image", "inspect", "--format", "{{json .Config.Env}}", image], {
    encoding: "utf8",
  });
  return JSON.parse(out) as string[];
}

/** An environment image with the pinned Codex CLI, built once per engine through the real builder. */
export const AGENT_IMAGE = "invariant-test/agent:codex";

export async function ensureAgentImage(runtime: ContainerRuntime): Promise<string> {
  // an image built before builds handed /root to the containers' user is built again, and one whose
  // commit added an empty GW_TOKEN though its build container had none (the commit now adds it only then)
  if (
    (await runtime.inspectImage(AGENT_IMAGE))?.labels[LABEL.homeOwner] &&
    !imageEnv(AGENT_IMAGE).includes("GW_TOKEN=")
  )
    return AGENT_IMAGE;
  const worker = { id: "test-worker", host: "test-host", pid: process.pid };
  const built = await prepareEnvironment(
    { runtime, codex: locateCodexBinary(), publish: () => Promise.resolve(), worker, active: new Set() },
    {
      projectId: "p-agent",
      versionId: "agent-image",
      kind: "base",
      fromImage: BASE_IMAGE,
      command: null,
      repository: "invariant-test/agent",
      tag: "codex",
      network: "none",
      limits: { cpus: 2, memoryBytes: 2 * 1024 ** 3, swapBytes: 0, pids: 512 },
      timeoutMs: 300_000,
    },
  );
  if (built.status !== "ready") throw new Error("could not build the agent test image");
  return AGENT_IMAGE;
}

/** Gateway settings for workers in tests that run no agent: an upstream on a loopback port nothing listens on. */
export function unusedModelGateway(codexHome: string) {
  return { openaiApiKey: null, codexHome, upstreamBaseUrl: "http://127.0.0.1:9/v1" };
}
