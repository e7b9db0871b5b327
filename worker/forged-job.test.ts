import fs from "node:fs";
import path from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { unusedModelGateway } from "../test/support/agent-image";
import { redisUrlFor, tempDir } from "../test/support/temp";
import type { EventInput } from "../src/server/core/events/event-stream";
import { connectRedis } from "../src/server/core/redis/connection";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import type { RegisteredJob } from "./job-handler";
import { createJobHandlers } from "./job-handlers";
import { startGatewayHost, type GatewayHost } from "./model-gateway-host";

/**
 * A job comes from Redis, so whoever can write there can forge one. The worker's own handlers (the
 * ones its BullMQ worker calls) get forged payloads that name paths outside the data dir: each is
 * refused with a message that names the field, and nothing is written anywhere.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 18); // read by nothing here: a refused job never reaches Redis
const dataDir = tempDir("forged-job");
const outside = tempDir("forged-job-outside");
const published: EventInput[] = [];
let redis: Redis;
let gatewayHost: GatewayHost;
let handlers: Map<string, RegisteredJob>;

beforeAll(async () => {
  redis = connectRedis({ url: REDIS_URL, name: "forged-job-test" });
  gatewayHost = await startGatewayHost({
    config: unusedModelGateway(tempDir("forged-codex-home")),
    dataDir,
    workerId: "w-forged",
    log: () => undefined,
  });
  handlers = createJobHandlers({
    runtime: createDockerRuntime(),
    redis,
    redisUrl: REDIS_URL,
    dataDir,
    publish: (event) => Promise.resolve(published.push(event)),
    identity: { id: "w-forged", host: "test", pid: process.pid },
    active: new Set(),
    gatewayHost,
    packageFiles: {
      bridgeDir: path.resolve(import.meta.dirname, "..", "assets"),
      codex: null,
      claudeCode: null,
      geminiCli: null,
    },
  });
});
afterAll(async () => {
  await gatewayHost.close();
  redis.disconnect();
});

const context = { workerId: "w-forged", log: () => undefined };
const limits = { cpus: 1, memoryBytes: 256 * 1024 ** 2, swapBytes: 0, pids: 64 };
const dataDirBefore = () => fs.readdirSync(dataDir).sort();

function agentJob(overrides: Record<string, unknown>) {
  return {
    runId: "run-forged",
    projectId: "p-forged",
    image: "invariant-base:bookworm",
    workspacePath: path.join(dataDir, "workspaces", "ws-0123456789abcdef01234567", "tree"),
    codexHomePath: path.join(dataDir, "trials", "t-forged", "codex-home"),
    harness: { kind: "codex", model: "m", reasoningEffort: "minimal" },
    prompt: "Do it.",
    network: "none",
    limits,
    timeoutMs: 10_000,
    ...overrides,
  };
}

function trialJob(overrides: Record<string, unknown>) {
  return {
    studyId: "st-forged",
    projectId: "p-forged",
    snapshotId: "a".repeat(64),
    image: "invariant-base:bookworm",
    testCommand: "true",
    junitPath: null,
    testFiles: [{ path: "test/a.test.js", sha256: "0".repeat(64), bytes: 1, role: "test" }],
    network: "none",
    limits,
    evalTimeoutMs: 10_000,
    trialId: "t-forged",
    attempt: 1,
    prompt: "Do it.",
    harness: { kind: "codex", model: "m", reasoningEffort: "minimal" },
    agentTimeoutMs: 10_000,
    ...overrides,
  };
}

async function expectRefused(options: { job: string; data: unknown; message: RegExp }) {
  const before = dataDirBefore();
  const handler = handlers.get(options.job);
  if (!handler) throw new Error(`no handler for ${options.job}`);
  await expect(handler.run(options.data, context)).rejects.toThrow(options.message);
  expect(fs.readdirSync(outside)).toEqual([]);
  expect(dataDirBefore()).toEqual(before);
  expect(published).toEqual([]);
}

describe("a forged job", () => {
  it("agent.run naming a Codex home outside the data dir is refused before it is created", async () => {
    await expectRefused({
      job: "agent.run",
      data: agentJob({ codexHomePath: path.join(outside, "codex-home") }),
      message: /codexHomePath .* is outside this worker's data dir/,
    });
  });

  it("agent.run naming a workspace or an extra mount outside the data dir is refused", async () => {
    await expectRefused({
      job: "agent.run",
      data: agentJob({ workspacePath: outside }),
      message: /workspacePath .* is outside this worker's data dir/,
    });
    await expectRefused({
      job: "agent.run",
      data: agentJob({ extraMounts: [{ hostPath: "/etc", containerPath: "/etc-host" }] }),
      message: /extraMounts\.0\.hostPath "\/etc" is outside/,
    });
  });

  it("agent.run host paths with .., relative or with a NUL byte are refused by the schema", async () => {
    const climbing = path.join(dataDir, "trials") + `/../../${path.basename(outside)}/codex-home`;
    for (const [value, message] of [
      [climbing, /A host path may not contain \. or \.\. segments/],
      ["trials/t-forged/codex-home", /must be absolute/],
      [`${dataDir}/trials/t\0/codex-home`, /NUL byte/],
    ] as const)
      await expectRefused({ job: "agent.run", data: agentJob({ codexHomePath: value }), message });
  });

  it("trial.run whose trial id climbs out of trials/ is refused (its log would land outside)", async () => {
    const climbing = path.relative(path.join(dataDir, "trials"), outside);
    expect(climbing.startsWith("..")).toBe(true);
    await expectRefused({ job: "trial.run", data: trialJob({ trialId: climbing }), message: /An id is letters/ });
    await expectRefused({ job: "trial.run", data: trialJob({ studyId: ".." }), message: /An id is letters/ });
  });

  it("trial.run and study.preflight with a test file or JUnit path that climbs out or is absolute are refused", async () => {
    const escape = `../../${path.basename(outside)}/escape.test.js`;
    const file = { path: escape, sha256: "0".repeat(64), bytes: 1, role: "test" };
    await expectRefused({
      job: "trial.run",
      data: trialJob({ testFiles: [file] }),
      message: /may not contain empty, \. or \.\. segments/,
    });
    await expectRefused({ job: "trial.run", data: trialJob({ junitPath: escape }), message: /\.\. segments/ });
    await expectRefused({
      job: "study.preflight",
      data: trialJob({ junitPath: `${outside}/junit.xml` }),
      message: /not an absolute one/,
    });
    await expectRefused({
      job: "study.preflight",
      data: trialJob({ testFiles: [{ ...file, path: "/etc/passwd" }] }),
      message: /not an absolute one/,
    });
  });
});
