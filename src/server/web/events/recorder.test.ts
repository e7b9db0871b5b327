import { type Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { migratedDb, redisUrlFor } from "../../../../test/support/temp";
import type { RecordedEvent } from "../../../shared/event-catalog";
import type { Db } from "../../core/db/client";
import { connectRedis } from "../../core/redis/connection";
import { EVENT_STREAM_KEY, RECORDER_GROUP, publishEvent } from "../../core/events/event-stream";
import { createEventQueries } from "./events.queries";
import { createRecorder } from "./recorder";

const REDIS_URL = redisUrlFor(inject("redisUrl"), 1);
let db: Db;
let redis: Redis;

beforeAll(async () => {
  ({ db } = await migratedDb());
  redis = connectRedis({ url: REDIS_URL, name: "recorder-test" });
});
beforeEach(async () => {
  await redis.del(EVENT_STREAM_KEY);
  await db.eventLog.deleteMany();
});
afterAll(async () => {
  redis.disconnect();
  await db.$disconnect();
});

function recorder(emitted: { room: string; event: RecordedEvent }[]) {
  return createRecorder({
    redis: connectRedis({ url: REDIS_URL, name: "recorder" }),
    events: createEventQueries(db),
    emit: (targets, event) => {
      for (const room of targets) emitted.push({ room, event });
    },
    log: () => undefined,
    blockMs: 50,
  });
}

const online = (pid: number) => ({
  type: "worker.online" as const,
  workerId: `w${pid}`,
  data: { host: "h", pid, concurrency: 1 },
});

describe("event recorder", () => {
  it("records each published event once in SQLite and emits it to its rooms", async () => {
    const emitted: { room: string; event: RecordedEvent }[] = [];
    const r = recorder(emitted);
    await r.start();
    await publishEvent(redis, online(1));
    await publishEvent(redis, online(2));
    await expect.poll(() => db.eventLog.count()).toBe(2);
    await r.stop();
    expect(emitted.map((e) => e.room)).toEqual(["system", "system"]);
    expect(emitted.map((e) => e.event.event.type)).toEqual(["worker.online", "worker.online"]);
    const pending = (await redis.xpending(EVENT_STREAM_KEY, RECORDER_GROUP)) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it("loses nothing when the web process dies between delivery and recording", async () => {
    const first = recorder([]);
    await first.start();
    await first.stop();
    await publishEvent(redis, online(3));
    await publishEvent(redis, online(4));
    // a web process that read the entries and died before recording or acknowledging them
    const crashed = connectRedis({ url: REDIS_URL, name: "crashed" });
    const delivered = (await crashed.xreadgroup(
      "GROUP",
      RECORDER_GROUP,
      "web",
      "COUNT",
      10,
      "STREAMS",
      EVENT_STREAM_KEY,
      ">",
    )) as [string, unknown[]][];
    expect(delivered[0]?.[1]).toHaveLength(2);
    crashed.disconnect();
    expect(await db.eventLog.count()).toBe(0);
    // the next web process re-reads its pending entries
    const emitted: { room: string; event: RecordedEvent }[] = [];
    const restarted = recorder(emitted);
    await restarted.start();
    await expect.poll(() => db.eventLog.count()).toBe(2);
    await restarted.stop();
    expect(emitted).toHaveLength(2);
  });

  it("is idempotent when an entry is recorded but not acknowledged before a crash", async () => {
    const r = recorder([]);
    await r.start();
    await r.stop();
    const id = await publishEvent(redis, online(5));
    const event = { v: 1 as const, at: new Date().toISOString(), ...online(5) };
    await createEventQueries(db).record(id, event); // recorded, then the process died before XACK
    const reader = connectRedis({ url: REDIS_URL, name: "reader" });
    await reader.xreadgroup("GROUP", RECORDER_GROUP, "web", "COUNT", 10, "STREAMS", EVENT_STREAM_KEY, ">");
    reader.disconnect();
    const emitted: { room: string; event: RecordedEvent }[] = [];
    const restarted = recorder(emitted);
    await restarted.start();
    await expect.poll(async () => ((await redis.xpending(EVENT_STREAM_KEY, RECORDER_GROUP)) as [number])[0]).toBe(0);
    await restarted.stop();
    expect(await db.eventLog.count()).toBe(1);
    expect(emitted).toHaveLength(0);
  });

  it("refuses to publish an event that does not match the catalog", async () => {
    await expect(publishEvent(redis, { type: "worker.online", data: { host: "h" } } as never)).rejects.toThrow();
    expect(await redis.xlen(EVENT_STREAM_KEY)).toBe(0);
  });
});
