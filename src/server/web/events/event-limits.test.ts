import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { migratedDb, redisUrlFor } from "../../../../test/support/temp";
import type { Db } from "../../core/db/client";
import { createEventBatch } from "../../core/agents/agent-event-batch";
import type { CodexEvent } from "../../core/agents/codex-events";
import { connectRedis } from "../../core/redis/connection";
import { MAX_EVENT_ENTRY_BYTES } from "../../core/events/event-limits";
import { EVENT_STREAM_KEY, publishEvent, type EventInput } from "../../core/events/event-stream";
import { createEventQueries } from "./events.queries";
import { createRecorder } from "./recorder";

/** Issue 15 item 5: no single Redis entry and no event batch is unbounded. Real Redis, real SQLite. */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 19);
let redis: Redis;
let db: Db;
beforeAll(async () => {
  ({ db } = await migratedDb());
  redis = connectRedis({ url: REDIS_URL, name: "event-limits-test" });
});
beforeEach(async () => {
  await redis.del(EVENT_STREAM_KEY);
});
afterAll(async () => {
  redis.disconnect();
  await db.$disconnect();
});

async function entrySizes(): Promise<number[]> {
  const entries = await redis.xrange(EVENT_STREAM_KEY, "-", "+");
  return entries.map(([, fields]) => Buffer.byteLength(fields[1] ?? ""));
}

const ids = { projectId: "p1", studyId: "s1", trialId: "t1" };

describe("one Redis entry", () => {
  it("holds at most 1 MiB: a huge log chunk is cut with a marker", async () => {
    const text = "é\n".repeat(3 * 1024 * 1024); // 12 MiB of JSON-escaped text
    await publishEvent(redis, { type: "trial.log", ...ids, data: { attempt: 1, text } });
    const [size] = await entrySizes();
    expect(size).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
    const [[, fields] = ["", []]] = await redis.xrange(EVENT_STREAM_KEY, "-", "+");
    expect((JSON.parse(fields[1] ?? "{}") as { data: { text: string } }).data.text).toMatch(
      /characters left out of this event\]\n$/,
    );
  });

  it("holds at most 1 MiB: another event's long strings are cut", async () => {
    const events: CodexEvent[] = [{ v: 1, type: "agent.message", itemId: "i", text: "z".repeat(4 * 1024 * 1024) }];
    await publishEvent(redis, { type: "agent.events", ...ids, data: { runId: "r", events } });
    const [size] = await entrySizes();
    expect(size).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
  });

  it("is dropped by the recorder when someone else wrote one over the limit", async () => {
    const forged = JSON.stringify({
      v: 1,
      at: new Date().toISOString(),
      type: "trial.log",
      ...ids,
      data: { attempt: 1, text: "x".repeat(MAX_EVENT_ENTRY_BYTES + 10) },
    });
    await redis.xadd(EVENT_STREAM_KEY, "*", "event", forged);
    const logs: string[] = [];
    const recorder = createRecorder({
      redis: connectRedis({ url: REDIS_URL, name: "event-limits-recorder" }),
      events: createEventQueries(db),
      emit: () => undefined,
      log: (message) => logs.push(message),
      blockMs: 50,
    });
    await recorder.start();
    await expect.poll(() => logs.join("\n"), { timeout: 5000 }).toMatch(/dropped malformed or oversized event/);
    await recorder.stop();
    expect(await db.eventLog.count()).toBe(0);
  });
});

describe("an agent's event batch", () => {
  it("leaves in messages of at most 256 KiB, at most 2,000 events waiting, the rest counted", async () => {
    const published: EventInput[] = [];
    const batch = createEventBatch({ publish: (event) => Promise.resolve(published.push(event)), ids, runId: "r" });
    const flood: CodexEvent[] = Array.from({ length: 5000 }, (_, index) => ({
      v: 1,
      type: "raw",
      line: `${index} ${"q".repeat(2000)}`,
      reason: "unknown-type",
    }));
    batch.add(flood);
    batch.add([{ v: 1, type: "agent.message", itemId: "big", text: "m".repeat(2 * 1024 * 1024) }]);
    await batch.flush();
    const sizes = published.map((event) => Buffer.byteLength(JSON.stringify(event)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(300 * 1024);
    const events = published.flatMap((event) => (event.type === "agent.events" ? event.data.events : []));
    expect(events.length).toBe(2001);
    expect(events.at(-1)?.type).toBe("error");
    expect(String(events.at(-1)?.message)).toMatch(/^3001 agent events were left out/);
  });
});
