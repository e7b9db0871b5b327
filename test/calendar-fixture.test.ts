import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent, type AgentRunDeps } from "../src/server/core/agents/agent-run";
import { locateCodexBinary } from "../src/server/core/agents/codex-binary";
import { startGatewaySocket, type GatewaySocket } from "../src/server/core/agents/gateway-socket";
import { startModelGateway, type ModelGateway } from "../src/server/core/gateway/model-gateway";
import { startMockModel, type MockModelServer } from "../src/server/core/mock-model/mock-model-server";
import { readMockScript } from "../src/server/core/mock-model/mock-script";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { ensureAgentImage } from "./support/agent-image";
import { tempDir } from "./support/temp";

/**
 * The calendar fixture (the product's demo project) and its four mock scripts, for real: the real
 * Codex binary in a container of the agent test image, through the model gateway, against the
 * scripted mock model; then `node --test` in a fresh container without network (Node 18).
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const FIXTURE = path.join(ROOT, "fixtures", "calendar-project");
const SCRIPTS_DIR = path.join(ROOT, "mock-scripts");
const TEST_FILE = path.join("test", "calendar.test.js");
const KEY = "sk-test-calendar-fixture";
const runtime = createDockerRuntime();
const codex = locateCodexBinary();
const run = promisify(execFile);

let image = "";
let mock: MockModelServer;
let gateway: ModelGateway;
let socket: GatewaySocket;

function deps(): AgentRunDeps {
  return {
    runtime,
    gateway,
    gatewaySocketPath: socket.path,
    bridgeDir: path.join(ROOT, "assets"),
    publish: () => Promise.resolve(),
    worker: { id: "test-worker", host: "test-host", pid: process.pid },
    active: new Set(),
    agents: codex ? { codex: { version: codex.version, hostDir: null } } : {},
  };
}

function copyFixture(): string {
  const workspace = tempDir("calendar");
  fs.cpSync(FIXTURE, workspace, { recursive: true });
  return workspace;
}

/** `node --test` in a fresh container of the image, the workspace mounted; the TAP summary counts. */
async function nodeTest(workspace: string): Promise<{ pass: number; fail: number; tests: number }> {
  const args = [
    "run",
    "--rm",
    "--network",
    "none",
    "-v",
    `${workspace}:/workspace`,
    "-w",
    "/workspace",
    image,
    "node",
    "--test",
    // TAP, whose summary this reads (Node.js 23+ prints spec by default)
    "--test-reporter=tap",
  ];
  // node --test exits 1 when a test fails; the output is what we judge
  const { stdout } = await run("docker", args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: Error & { stdout?: string; stderr?: string }) => {
      if (typeof error.stdout === "string" && /^# tests \d+$/m.test(error.stdout)) return { stdout: error.stdout };
      throw new Error(`node --test did not run: ${error.stderr ?? error.message}`);
    },
  );
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(stdout)?.[1] ?? NaN);
  return { pass: count("pass"), fail: count("fail"), tests: count("tests") };
}

beforeAll(async () => {
  image = await ensureAgentImage(runtime);
  mock = await startMockModel({ scriptsDir: SCRIPTS_DIR, apiKey: KEY });
  gateway = await startModelGateway({
    upstreamBaseUrl: mock.url,
    credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
  });
  socket = await startGatewaySocket({ socketPath: path.join(tempDir("gateway"), "gateway.sock"), gateway });
}, 300_000);

afterAll(async () => {
  await socket?.close();
  await gateway?.close();
  await mock?.close();
});

const CASES = [
  { script: "calendar-fix-all", pass: 23, fail: 0, verdict: "23/23" },
  { script: "calendar-fix-some", pass: 13, fail: 10, verdict: "13/23" },
  { script: "calendar-fix-none", pass: 0, fail: 23, verdict: "0/23" },
  { script: "calendar-cheat", pass: 0, fail: 23, verdict: "0/23 (its own weakened tests: 23/23)" },
] as const;

describe("the calendar fixture and its mock scripts", () => {
  it("fails all 23 tests as shipped, under the image's Node", async () => {
    expect(await nodeTest(copyFixture())).toEqual({ pass: 0, fail: 23, tests: 23 });
  });

  it.each(CASES)("$script: the real agent's result scores $verdict", async ({ script, pass, fail }) => {
    const parsed = readMockScript({ dir: SCRIPTS_DIR, name: script });
    expect(parsed?.description).toMatch(/\S/);
    const workspace = copyFixture();
    const result = await runAgent(deps(), {
      runId: `run-${script}-${Math.random().toString(36).slice(2)}`,
      projectId: "p-calendar",
      image,
      workspacePath: workspace,
      codexHomePath: tempDir("codex-home"),
      harness: { kind: "codex", model: script, reasoningEffort: "low", instructions: "", overrides: [] },
      prompt: "Implement src/calendar.js so that `node --test` passes.",
      network: "none",
      limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 512 },
      timeoutMs: 60_000,
    });
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
    // every step is one model response reporting the script's usage; the gateway metered them all
    const steps = parsed?.steps.length ?? 0;
    const usage = parsed?.usage;
    expect(result.meteredUsage).toEqual({
      inputTokens: steps * (usage?.inputTokens ?? 0),
      cachedInputTokens: steps * (usage?.cachedInputTokens ?? 0),
      outputTokens: steps * (usage?.outputTokens ?? 0),
      reasoningTokens: steps * (usage?.reasoningTokens ?? 0),
    });

    const original = fs.readFileSync(path.join(FIXTURE, TEST_FILE));
    const testFile = path.join(workspace, TEST_FILE);
    if (script === "calendar-cheat") {
      // the agent weakened the checks: on its own test file everything passes ...
      expect(fs.readFileSync(testFile).equals(original)).toBe(false);
      expect(await nodeTest(workspace)).toEqual({ pass: 23, fail: 0, tests: 23 });
      // ... so evaluation restores the captured test file byte for byte
      fs.writeFileSync(testFile, original);
    } else {
      expect(fs.readFileSync(testFile).equals(original)).toBe(true);
    }
    if (script === "calendar-fix-none" || script === "calendar-cheat") {
      expect(fs.readFileSync(path.join(workspace, "src", "calendar.js"), "utf8")).toBe(
        fs.readFileSync(path.join(FIXTURE, "src", "calendar.js"), "utf8"),
      );
    }
    expect(await nodeTest(workspace)).toEqual({ pass, fail, tests: 23 });
  });
});
