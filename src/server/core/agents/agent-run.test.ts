import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, REPO_ROOT } from "../../../../test/support/temp";
import { AGENT_IMAGE, ensureAgentImage } from "../../../../test/support/agent-image";
import type { EventInput } from "../events/event-stream";
import { startModelGateway, type ModelGateway } from "../gateway/model-gateway";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import { LABEL } from "../runtime/container-spec";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { runAgent, stopRun, type AgentRunDeps, type AgentRunInput } from "./agent-run";
import { locateCodexBinary } from "./codex-binary";
import { startGatewaySocket, type GatewaySocket } from "./gateway-socket";

/**
 * The real Codex binary in a real container of a prepared environment image, through the model
 * gateway (unix socket into a container without network) to the scripted mock model. Loopback only.
 */
const KEY = "sk-test-RECOGNISABLE-123";
const ROOT = REPO_ROOT;
const IMAGE = AGENT_IMAGE;
const runtime = createDockerRuntime();
const codex = locateCodexBinary();

let mock: MockModelServer;
let gateway: ModelGateway;
let socket: GatewaySocket;
let listener: net.Server;
let listenerPort = 0;
const requests: MockModelRequest[] = [];
const published: EventInput[] = [];
const inspected: string[] = [];

function deps(): AgentRunDeps {
  return {
    runtime,
    gateway,
    gatewaySocketPath: socket.path,
    bridgeDir: path.join(ROOT, "assets"),
    publish: (event) => {
      published.push(event);
      if (event.type === "agent.started")
        inspected.push(spawnSync("docker", ["inspect", event.data.containerId], { encoding: "utf8" }).stdout);
      return Promise.resolve();
    },
    worker: { id: "test-worker", host: "test-host", pid: process.pid },
    active: new Set(),
    agents: codex ? { codex: { version: codex.version, hostDir: null } } : {},
  };
}

function input(overrides: Partial<AgentRunInput> & { model: string }): AgentRunInput {
  const { model, ...rest } = overrides;
  return {
    runId: `run-${Math.random().toString(36).slice(2)}`,
    projectId: "p-agent",
    image: IMAGE,
    workspacePath: tempDir("workspace"),
    codexHomePath: tempDir("codex-home"),
    harness: { kind: "codex", model, reasoningEffort: "low", instructions: "", overrides: [] },
    prompt: "Do the scripted task.",
    network: "none",
    limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 512 },
    timeoutMs: 60_000,
    ...rest,
  };
}

beforeAll(async () => {
  await ensureAgentImage(runtime);
  listener = net.createServer((c) => c.end("you reached the host\n"));
  await new Promise<void>((resolve) => listener.listen(0, "0.0.0.0", () => resolve()));
  listenerPort = (listener.address() as net.AddressInfo).port;
  mock = await startMockModel({
    scriptsDir: path.join(ROOT, "mock-scripts"),
    scripts: {
      budgeted: {
        usage: { inputTokens: 90, outputTokens: 10 },
        steps: [
          { kind: "run", command: "true" },
          { kind: "run", command: "true" },
          { kind: "run", command: "true" },
          { kind: "reply", text: "never reached" },
        ],
      },
      "slow-command": {
        usage: { inputTokens: 10, outputTokens: 1 },
        steps: [
          { kind: "run", command: "sleep 60" },
          { kind: "reply", text: "done" },
        ],
      },
      probe: {
        usage: { inputTokens: 10, outputTokens: 1 },
        steps: [
          {
            kind: "run",
            command: [
              `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' > /workspace/environ.txt`,
              // the key is split in the command so the command's own text (kept in Codex's session log) does not contain it
              `grep -rl "${KEY.slice(0, 8)}""${KEY.slice(8)}" /root /run/invariant /etc 2>/dev/null > /workspace/key-files.txt || true`,
              "awk 'NR>1 && $2==\"00000000\"' /proc/net/route | wc -l > /workspace/default-routes.txt",
              "ls /sys/class/net > /workspace/interfaces.txt",
              `for host in 172.17.0.1 127.0.0.1; do node -e "const s=require('net').connect(Number(process.argv[1]),process.argv[2]);s.on('connect',()=>{console.log('CONNECTED');process.exit(0)});s.on('error',e=>{console.log(e.code);process.exit(0)})" ${listenerPort} $host; done > /workspace/host-listener.txt`,
            ].join("; "),
          },
          { kind: "reply", text: "probed" },
        ],
      },
    },
    apiKey: KEY,
    onRequest: (request) => requests.push(request),
  });
  gateway = await startModelGateway({
    upstreamBaseUrl: mock.url,
    credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
    onBudgetExceeded: ({ runId, usedTokens, budgetTokens }) =>
      stopRun(runId, `Stopped: the run used ${usedTokens} tokens, past its budget of ${budgetTokens}.`),
  });
  socket = await startGatewaySocket({ socketPath: path.join(tempDir("gateway"), "gateway.sock"), gateway });
}, 300_000);

afterAll(async () => {
  await socket?.close();
  await gateway?.close();
  await mock?.close();
  listener?.close();
});

describe("agent runs in containers", () => {
  it("edits files in the workspace; the gateway meters what Codex reports; a second turn resumes the thread", async () => {
    const first = input({ model: "edit-file" });
    const result = await runAgent(deps(), first);
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
    expect(fs.readFileSync(path.join(first.workspacePath, "NOTES.md"), "utf8")).toContain("Written by the mock model");
    expect(fs.readFileSync(path.join(first.workspacePath, "src/generated/answer.txt"), "utf8")).toBe("42\n");
    expect(result.threadId).toMatch(/\S/);
    expect(result.meteredUsage).toEqual(result.reportedUsage);
    expect(result.reportedUsage.inputTokens).toBeGreaterThan(0);
    expect(result.harnessVersion).toBe(codex?.version);

    const before = requests.length;
    const second = await runAgent(deps(), {
      ...first,
      runId: `${first.runId}-2`,
      resumeThreadId: result.threadId,
      threadUsageBefore: result.reportedUsage,
      prompt: "Continue.",
    });
    expect(second.outcome).toMatchObject({ status: "succeeded" });
    expect(second.threadId).toBe(result.threadId);
    expect(fs.readFileSync(path.join(first.workspacePath, "NOTES.md"), "utf8")).toContain("Second turn was here.");
    const resumed = JSON.stringify(requests[before]?.body.input ?? []);
    expect(resumed).toContain("I wrote NOTES.md and src/generated/answer.txt.");
    expect(second.meteredUsage).toEqual(second.reportedUsage);
    // published events: started, parsed Codex events, finished
    const types = published.map((e) => e.type);
    expect(types).toContain("agent.started");
    expect(types).toContain("agent.events");
    expect(published.filter((e) => e.type === "agent.finished")).toHaveLength(2);
  });

  it("turns an HTTP 500 and a cut stream into clear failed runs", async () => {
    const failed = await runAgent(deps(), input({ model: "http-500" }));
    expect(failed.outcome.status).toBe("failed");
    expect(failed.outcome.status !== "succeeded" && failed.outcome.reason).toMatch(/500/);
    const cut = await runAgent(deps(), input({ model: "cut-stream" }));
    expect(cut.outcome.status).toBe("failed");
  });

  it("stops a run past its time limit and removes its container", async () => {
    const run = input({ model: "slow-command", timeoutMs: 4_000 });
    const result = await runAgent(deps(), run);
    expect(result.outcome).toMatchObject({
      status: "stopped",
      reason: expect.stringContaining("time limit") as unknown,
    });
    const left = (await runtime.listManagedContainers()).filter(
      (c) => c.labels[LABEL.project] === "p-agent" && c.labels[LABEL.role] === "agent",
    );
    expect(left).toEqual([]);
  });

  it("stops a run past its token budget, with the reason", async () => {
    const result = await runAgent(deps(), input({ model: "budgeted", budgetTokens: 150 }));
    expect(result.outcome).toMatchObject({
      status: "stopped",
      reason: expect.stringContaining("past its budget of 150") as unknown,
    });
    expect((result.meteredUsage?.inputTokens ?? 0) + (result.meteredUsage?.outputTokens ?? 0)).toBeGreaterThanOrEqual(
      150,
    );
  });

  it("runs any agent CLI with the command harness: the task on stdin and in $INVARIANT_TASK", async () => {
    const run = input({ model: "unused" });
    const result = await runAgent(deps(), {
      ...run,
      harness: {
        kind: "command",
        command: "cat > /workspace/from-stdin.txt; printf '%s' \"$INVARIANT_TASK\" > /workspace/from-env.txt",
      },
      prompt: "Fix the 'calendar' bug; $HOME stays literal.",
    });
    expect(result.outcome.status).toBe("succeeded");
    expect(fs.readFileSync(path.join(run.workspacePath, "from-stdin.txt"), "utf8")).toBe(
      "Fix the 'calendar' bug; $HOME stays literal.",
    );
    expect(fs.readFileSync(path.join(run.workspacePath, "from-env.txt"), "utf8")).toBe(
      "Fix the 'calendar' bug; $HOME stays literal.",
    );
    const failing = await runAgent(deps(), {
      ...input({ model: "unused" }),
      harness: { kind: "command", command: "exit 3" },
    });
    expect(failing.outcome).toMatchObject({ status: "failed", reason: "The agent command exited with code 3." });
  });

  it("keeps the key out of the container, and a none-mode container reaches only the gateway", async () => {
    // the probe also dials a listener on the host (docker bridge address and loopback); it must not get through
    const run = input({ model: "probe" });
    const result = await runAgent(deps(), run);
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" }); // so the gateway answered
    const read = (name: string) => fs.readFileSync(path.join(run.workspacePath, name), "utf8");
    expect(read("environ.txt")).toContain("GW_TOKEN=iwrun_");
    expect(read("environ.txt")).not.toContain(KEY);
    expect(read("key-files.txt").trim()).toBe("");
    expect(read("default-routes.txt").trim()).toBe("0");
    expect(read("interfaces.txt").trim()).toBe("lo");
    expect(read("host-listener.txt").trim().split("\n")).toEqual(["ENETUNREACH", "ECONNREFUSED"]);
    // nor in docker inspect (env, labels), the Codex home on the host, or the events we published
    for (const info of inspected) expect(info).not.toContain(KEY);
    const codexHomeFiles = spawnSync("grep", ["-rl", KEY, run.codexHomePath], { encoding: "utf8" }).stdout;
    expect(codexHomeFiles).toBe("");
    expect(JSON.stringify(published)).not.toContain(KEY);
  });
});
