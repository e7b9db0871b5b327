import { type Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { migratedDb, redisUrlFor, tempDir } from "../test/support/temp";
import { unusedModelGateway } from "../test/support/agent-image";
import { createAppServices, type AppServices } from "../src/server/web/wiring/app-services";
import type { Db } from "../src/server/core/db/client";
import { EVENT_STREAM_KEY } from "../src/server/core/events/event-stream";
import { connectRedis } from "../src/server/core/redis/connection";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { startWorker, type RunningWorker } from "./main";

const REDIS_URL = redisUrlFor(inject("redisUrl"), 3);
let db: Db;
let dataDir: string;
let services: AppServices;
let redis: Redis;

beforeAll(async () => {
  ({ db, dataDir } = await migratedDb());
  redis = connectRedis({ url: REDIS_URL, name: "worker-test" });
  await redis.flushdb();
  services = createAppServices({
    db,
    redisUrl: REDIS_URL,
    dataDir,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: createDockerRuntime(),
    sessionRuntime: (policy) => createDockerRuntime(policy),
  });
});
afterAll(async () => {
  await services.close();
  redis.disconnect();
  await db.$disconnect();
});

describe("worker through Redis", () => {
  let worker: RunningWorker;

  it("announces itself with a heartbeat and an online event", async () => {
    await expect(services.system.selfcheck()).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
    worker = await startWorker({
      redisUrl: REDIS_URL,
      dataDir,
      concurrency: 2,
      version: "test",
      modelGateway: unusedModelGateway(tempDir("codex-home")),
      log: () => undefined,
    });
    const workers = await services.system.workers();
    expect(workers).toEqual([
      expect.objectContaining({ id: worker.info.id, pid: process.pid, concurrency: 2, version: "test" }),
    ]);
    const entries = await redis.xrange(EVENT_STREAM_KEY, "-", "+");
    expect(entries.map(([, fields]) => JSON.parse(fields[1] ?? "{}") as { type: string }).map((e) => e.type)).toContain(
      "worker.online",
    );
  });

  it("runs a self-check job on the worker and returns its host's real checks", async () => {
    const result = await services.system.selfcheck({ timeoutMs: 30_000 });
    expect(result.workerId).toBe(worker.info.id);
    const docker = result.checks.find((check) => check.id === "docker");
    expect(docker).toMatchObject({ status: "ok" });
    expect(docker?.detail).toMatch(/^Docker \d+\./);
    expect(result.checks.find((check) => check.id === "redis")?.status).toBe("ok");
  });

  it("removes its heartbeat and says goodbye when stopped", async () => {
    await worker.stop("test finished");
    expect(await services.system.workers()).toEqual([]);
    const entries = await redis.xrange(EVENT_STREAM_KEY, "-", "+");
    const last = JSON.parse(entries.at(-1)?.[1][1] ?? "{}") as { type: string; data: { reason: string } };
    expect(last).toMatchObject({ type: "worker.offline", data: { reason: "test finished" } });
  });
});
