import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migratedDb, tempDir } from "../../../../test/support/temp";
import type { Db } from "../../core/db/client";
import { connectRedis } from "../../core/redis/connection";
import { startPrivateRedis, type PrivateRedis } from "../../core/redis/private-redis";
import { EVENT_STREAM_KEY, MAX_STREAM_LENGTH, publishEvent } from "../../core/events/event-stream";
import { createEventQueries } from "./events.queries";
import { createRecorder } from "./recorder";

/**
 * Issue 18, drill 5: the event stream is trimmed only behind the recorder. Real Redis (a private one:
 * the shared one's databases are all taken), real SQLite.
 */
let server: PrivateRedis;
let redis: Redis;
let db: Db;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("trim-redis") });
  redis = connectRedis({ url: server.url, name: "trim-test" });
  ({ db } = await migratedDb());
});
beforeEach(async () => {
  await redis.del(EVENT_STREAM_KEY);
  await db.eventLog.deleteMany();
});
afterAll(async () => {
  redis.disconnect();
  await db.$disconnect();
  await server.stop();
});

const online = (pid: number) => ({
  type: "worker.online" as const,
  workerId: `w${pid}`,
  data: { host: "h", pid, concurrency: 1 },
});

function recorder(maxStreamLength?: number) {
  return createRecorder({
    redis: connectRedis({ url: server.url, name: "trim-recorder" }),
    events: createEventQueries(db),
    emit: () => undefined,
    log: () => undefined,
    blockMs: 50,
    ...(maxStreamLength ? { maxStreamLength } : {}),
  });
}

describe("the event stream", () => {
  it("keeps every unrecorded entry while the web process is down, even past its cap", async () => {
    const first = recorder();
    await first.start(); // the recorder's group exists, as after any earlier run
    await first.stop();
    const marker = await publishEvent(redis, online(1));
    for (let sent = 0; sent < MAX_STREAM_LENGTH + 1000; sent += 1000)
      await Promise.all(Array.from({ length: 1000 }, (_, i) => publishEvent(redis, online(sent + i + 2))));
    // nothing was recorded yet: nothing may be gone (the cap used to trim it on publish)
    expect(await redis.xrange(EVENT_STREAM_KEY, marker, marker)).toHaveLength(1);
    expect(await redis.xlen(EVENT_STREAM_KEY)).toBeGreaterThan(MAX_STREAM_LENGTH + 1000);
  });

  it("is trimmed to its cap once recorded, never past what the recorder has not acknowledged", async () => {
    const cap = 50;
    const r = recorder(cap);
    await r.start();
    await r.stop();
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push(await publishEvent(redis, online(i)));
    expect(await redis.xlen(EVENT_STREAM_KEY)).toBe(200); // the web process was down
    const restarted = recorder(cap);
    await restarted.start();
    await expect.poll(() => db.eventLog.count(), { timeout: 30_000 }).toBe(200);
    // the last row lands before its batch is acknowledged and the stream trimmed behind it
    await expect.poll(() => redis.xlen(EVENT_STREAM_KEY), { timeout: 30_000 }).toBeLessThanOrEqual(cap + 1);
    await restarted.stop();
    // every entry was recorded before it was trimmed; the newest `cap` stay
    const recorded = new Set((await db.eventLog.findMany({ select: { streamId: true } })).map((row) => row.streamId));
    expect(ids.filter((id) => !recorded.has(id))).toEqual([]);
    const left = await redis.xrange(EVENT_STREAM_KEY, "-", "+");
    expect(left.length).toBeLessThanOrEqual(cap + 1);
    expect(left.at(-1)?.[0]).toBe(ids.at(-1));
  });
});
