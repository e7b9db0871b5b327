import fs from "node:fs";
import path from "node:path";
import { QueueEvents, Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureAgentImage } from "../test/support/agent-image";
import { redisUrlFor, tempDir } from "../test/support/temp";
import { agentRunJob } from "../src/server/core/jobs/agent-jobs";
import { QUEUE_NAME } from "../src/server/core/jobs/job-catalog";
import { startMockModel, type MockModelServer } from "../src/server/core/mock-model/mock-model-server";
import { connectRedis } from "../src/server/core/redis/connection";
import { queueConnection } from "../src/server/core/jobs/queue-connection";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { startWorker, type RunningWorker } from "./main";

/** The agent.run job through Redis: the worker's own model gateway (key from its config) → mock model. */
const KEY = "sk-test-RECOGNISABLE-456";
const REDIS_URL = redisUrlFor(inject("redisUrl"), 7);
let mock: MockModelServer;
let worker: RunningWorker;
let queue: Queue;
let events: QueueEvents;
let image: string;
let dataDir: string;

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "agent-job-test" });
  await redis.flushdb();
  redis.disconnect();
  image = await ensureAgentImage(createDockerRuntime());
  mock = await startMockModel({ scriptsDir: path.resolve(import.meta.dirname, "..", "mock-scripts"), apiKey: KEY });
  dataDir = tempDir("agent-job");
  worker = await startWorker({
    redisUrl: REDIS_URL,
    dataDir,
    concurrency: 1,
    version: "test",
    modelGateway: { openaiApiKey: KEY, codexHome: tempDir("host-codex-home"), upstreamBaseUrl: mock.url },
    log: () => undefined,
  });
  queue = new Queue(QUEUE_NAME, { connection: queueConnection(REDIS_URL) });
  events = new QueueEvents(QUEUE_NAME, { connection: queueConnection(REDIS_URL) });
  await events.waitUntilReady();
}, 300_000);

afterAll(async () => {
  await worker.stop("test finished");
  await events.close();
  await queue.close();
  await mock.close();
});

describe("agent.run job", () => {
  it("runs Codex in a container on the worker and returns the outcome, thread and metered tokens", async () => {
    // a job names paths inside the worker's data dir (jobs naming others are refused: forged-job.test.ts)
    const runId = `run-${Date.now()}`;
    const workspace = path.join(dataDir, "workspaces", "ws-0123456789abcdef01234567");
    fs.mkdirSync(workspace, { recursive: true });
    const data = agentRunJob.schema.parse({
      runId,
      projectId: "p-job",
      image,
      workspacePath: workspace,
      codexHomePath: path.join(dataDir, "trials", runId, "codex-home"),
      harness: { kind: "codex", model: "hello", reasoningEffort: "minimal" },
      prompt: "Say hello.",
      network: "none",
      limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 256 },
      timeoutMs: 60_000,
    });
    const job = await queue.add(agentRunJob.name, data, { jobId: runId });
    const again = await queue.add(agentRunJob.name, data, { jobId: runId }); // a double click: same job, not a second run
    expect(again.id).toBe(job.id);
    const result = agentRunJob.result.parse(await job.waitUntilFinished(events, 120_000));
    expect(result.outcome.status, JSON.stringify(result.outcome)).toBe("succeeded");
    expect(result.threadId).toMatch(/\S/);
    expect(result.meteredUsage).toEqual(result.reportedUsage);
    expect(result.agentSeconds).toBeGreaterThan(0);
  });
});
