import type { Redis } from "ioredis";
import { EVENT_CATALOG_VERSION, invariantEventSchema, type InvariantEvent } from "../../shared/event-catalog";
import { fitEventJson } from "./event-limits";

/** The Redis stream workers publish to and the web process records from. */
export const EVENT_STREAM_KEY = "invariant:events";
export const RECORDER_GROUP = "recorder";
const MAX_STREAM_LENGTH = 100_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<InvariantEvent, "v" | "at">;

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
  const id = await redis.xadd(
    EVENT_STREAM_KEY,
    "MAXLEN",
    "~",
    String(MAX_STREAM_LENGTH),
    "*",
    "event",
    fitEventJson(event),
  );
  if (!id) throw new Error("Redis did not accept the event");
  return id;
}
