import type { Redis } from "ioredis";
import { EVENT_CATALOG_VERSION, invariantEventSchema, type InvariantEvent } from "../../../shared/event-catalog";
import { fitEventJson } from "./event-limits";

/** The Redis stream workers publish to and the web process records from. */
export const EVENT_STREAM_KEY = "invariant:events";
export const RECORDER_GROUP = "recorder";
/**
 * How many entries the stream keeps once they are recorded. The recorder trims it, and only behind
 * itself (entries it has acknowledged): a web process that is down while workers publish loses nothing,
 * the stream just grows until it is back (each entry is at most MAX_EVENT_ENTRY_BYTES).
 */
export const MAX_STREAM_LENGTH = 100_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<InvariantEvent, "v" | "at">;

/** The port modules publish events through (the wiring binds it to publishEvent on its Redis). */
export type EventPublisher = (event: EventInput) => Promise<unknown>;

/**
 * Publishes one catalog event; validates before writing so a bad event never reaches the stream, and
 * keeps every entry within MAX_EVENT_ENTRY_BYTES (a log chunk is cut, an oversized event refused).
 */
export async function publishEvent(
  redis: Redis,
  input: EventInput,
  clock: () => Date = () => new Date(),
): Promise<string> {
  const event = invariantEventSchema.parse({ ...input, v: EVENT_CATALOG_VERSION, at: clock().toISOString() });
  const id = await redis.xadd(EVENT_STREAM_KEY, "*", "event", fitEventJson(event));
  if (!id) throw new Error("Redis did not accept the event");
  return id;
}

/**
 * Trims the stream to about `maxLength` entries, never past an entry the recorder has not acknowledged:
 * the cut is the oldest of the group's pending entries and its last delivered one.
 */
export async function trimBehindRecorder(redis: Redis, maxLength: number = MAX_STREAM_LENGTH): Promise<void> {
  if ((await redis.xlen(EVENT_STREAM_KEY)) <= maxLength) return;
  const groups = (await redis.xinfo("GROUPS", EVENT_STREAM_KEY)) as unknown[][];
  const group = groups.find((fields) => fields[fields.indexOf("name") + 1] === RECORDER_GROUP);
  const delivered = group ? String(group[group.indexOf("last-delivered-id") + 1]) : null;
  if (!delivered || delivered === "0-0") return;
  const summary = (await redis.xpending(EVENT_STREAM_KEY, RECORDER_GROUP)) as [number, string | null, ...unknown[]];
  const oldestPending = summary[0] > 0 ? summary[1] : null;
  const recorded = oldestPending ?? nextId(delivered); // everything before this is acknowledged
  // the newest `maxLength` entries stay in any case (history for tools and tests)
  const tail = (await redis.xrevrange(EVENT_STREAM_KEY, "+", "-", "COUNT", maxLength)) as [string, string[]][];
  const keepFrom = tail.at(-1)?.[0];
  if (!keepFrom) return;
  const cut = compareIds(recorded, keepFrom) < 0 ? recorded : keepFrom;
  await redis.xtrim(EVENT_STREAM_KEY, "MINID", cut);
}

function parseId(id: string): [bigint, bigint] {
  const [ms = "0", seq = "0"] = id.split("-");
  return [BigInt(ms), BigInt(seq)];
}

function compareIds(a: string, b: string): number {
  const [am, as] = parseId(a);
  const [bm, bs] = parseId(b);
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}

function nextId(id: string): string {
  const [ms, seq] = parseId(id);
  return `${ms}-${seq + 1n}`;
}
