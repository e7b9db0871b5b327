import { afterAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import type { HealthReport } from "../src/shared/system-health";
import { tempDir } from "./support/temp";
import { launch, signalProcess, type Launched } from "./support/launch";

/**
 * Issue 18, drill 3: health tells the truth. A dashboard on a Redis of the test's own (--redis-url)
 * without a worker; then that Redis is killed and started again. Health degrades and says why, a
 * request that needs Redis is refused at once with a clear message, and reads from SQLite keep working.
 */
const NO_HANG_MS = 10_000; // a request that needs Redis used to hang 30–60 s during an outage
let app: Launched | null = null;
let redis: PrivateRedis | null = null;

afterAll(async () => {
  await app?.stop("SIGTERM");
  await redis?.stop();
});

async function health(): Promise<{ status: number; body: HealthReport }> {
  const response = await fetch(`${app?.base}/api/health`, { signal: AbortSignal.timeout(NO_HANG_MS) });
  return { status: response.status, body: (await response.json()) as HealthReport };
}

async function trpc(procedure: string, body?: unknown): Promise<{ status: number; message: string }> {
  const response = await fetch(`${app?.base}/api/trpc/${procedure}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${app?.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(NO_HANG_MS),
  });
  const json = (await response.json()) as { error?: { message: string } };
  return { status: response.status, message: json.error?.message ?? "" };
}

describe("health", () => {
  it("degrades when no worker is online, and when Redis is down; Redis-needing requests fail fast, reads go on", async () => {
    const redisDir = tempDir("health-redis");
    redis = await startPrivateRedis({ dataDir: redisDir });
    app = await launch({ dataDir: tempDir("health"), args: ["--no-worker", "--redis-url", redis.url] });

    const noWorker = await health();
    expect(noWorker.status).toBe(503);
    expect(noWorker.body).toMatchObject({ status: "degraded", redis: { reachable: true }, workers: { online: 0 } });
    expect(noWorker.body.problems.join(" ")).toMatch(/^No worker is online/);
    expect(noWorker.body.recorder.lag).toEqual(expect.any(Number));

    signalProcess(redis.pid, "SIGKILL");
    await expect.poll(async () => (await health()).body.redis.reachable, { timeout: 30_000 }).toBe(false);
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body.problems.join(" ")).toMatch(/Redis is not reachable/);
    expect(down.body.workers.online).toBeNull();

    // needs Redis: refused at once, with what to do
    for (const [procedure, body] of [
      ["system.selfcheck", {}],
      ["system.workers", undefined],
    ] as const) {
      const refused = await trpc(procedure, body);
      expect(refused.status, procedure).toBe(503);
      expect(refused.message, procedure).toMatch(/^Redis is not reachable, and this needs it/);
    }
    // answered from SQLite: keeps working
    expect((await trpc("projects.list")).status).toBe(200);

    redis = await startPrivateRedis({ dataDir: redisDir, url: redis.url });
    await expect.poll(async () => (await health()).body.redis.reachable, { timeout: 30_000 }).toBe(true);
    expect((await trpc("system.workers")).status).toBe(200);
    expect((await health()).body.problems.join(" ")).not.toMatch(/Redis/);
  });
});
