import type { Redis } from "ioredis";
import { MAX_EVENT_ENTRY_BYTES } from "../../core/events/event-limits";
import { invariantEventSchema, roomsFor, type RecordedEvent } from "../../../shared/event-catalog";
import type { EventQueries } from "./events.queries";
import {
  EVENT_STREAM_KEY,
  MAX_STREAM_LENGTH,
  RECORDER_GROUP,
  trimBehindRecorder,
} from "../../core/events/event-stream";
import { messageOf } from "../../../shared/error-message";

export interface RecorderDeps {
  /** A dedicated connection: the recorder blocks on XREADGROUP. */
  redis: Redis;
  events: EventQueries;
  /** Sends a recorded event to these socket.io rooms at once (a socket in several of them gets it once). */
  emit: (rooms: string[], event: RecordedEvent) => void;
  /** Domain effects of an event (e.g. an environment version becoming ready), applied before the ack. */
  apply?: (event: RecordedEvent["event"], options: { firstTime: boolean }) => Promise<void>;
  log: (message: string) => void;
  /** Fixed consumer name: there is one web process, and its pending entries survive its restarts. */
  consumer?: string;
  blockMs?: number;
  /** The stream is trimmed to about this many entries, only behind what was recorded (tests lower it). */
  maxStreamLength?: number;
}

type StreamReply = [string, [string, string[]][]][] | null;

async function ensureGroup(redis: Redis): Promise<void> {
  try {
    await redis.xgroup("CREATE", EVENT_STREAM_KEY, RECORDER_GROUP, "0", "MKSTREAM");
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes("BUSYGROUP")) throw error;
  }
}

/** Records, applies and emits each entry, then acknowledges it (a malformed one is only logged). */
async function handle(deps: RecorderDeps, entries: [string, string[]][]): Promise<number> {
  for (const [streamId, fields] of entries) {
    const index = (fields ?? []).indexOf("event"); // fields are null for entries trimmed from the stream
    const raw = index >= 0 ? fields[index + 1] : undefined;
    let parsed;
    try {
      // an entry over the limit was not written by publishEvent: not parsed, not stored
      parsed =
        (raw?.length ?? 0) > MAX_EVENT_ENTRY_BYTES ? null : invariantEventSchema.safeParse(JSON.parse(raw ?? "null"));
    } catch {
      parsed = null;
    }
    if (parsed?.success) {
      const { recorded, created } = await deps.events.record(streamId, parsed.data);
      if (deps.apply) await deps.apply(parsed.data, { firstTime: created }); // replayed entries: apply() decides what is safe to redo
      if (created) deps.emit(roomsFor(recorded.event), recorded);
    } else {
      deps.log(`recorder: dropped malformed or oversized event ${streamId} (${raw?.length ?? 0} characters)`);
    }
    await deps.redis.xack(EVENT_STREAM_KEY, RECORDER_GROUP, streamId);
  }
  if (entries.length > 0) await trimBehindRecorder(deps.redis, deps.maxStreamLength ?? MAX_STREAM_LENGTH);
  return entries.length;
}

/** Reads and records everything available once: pending entries first, then new ones. */
async function drainOnce(options: { deps: RecorderDeps; consumer: string; blockMs: number }): Promise<number> {
  const { deps, consumer } = options;
  const pending = (await deps.redis.xreadgroup(
    "GROUP",
    RECORDER_GROUP,
    consumer,
    "COUNT",
    200,
    "STREAMS",
    EVENT_STREAM_KEY,
    "0",
  )) as StreamReply;
  const pendingEntries = pending?.[0]?.[1] ?? [];
  if (pendingEntries.length > 0) return handle(deps, pendingEntries);
  const fresh = (await deps.redis.xreadgroup(
    "GROUP",
    RECORDER_GROUP,
    consumer,
    "COUNT",
    200,
    "BLOCK",
    options.blockMs,
    "STREAMS",
    EVENT_STREAM_KEY,
    ">",
  )) as StreamReply;
  return handle(deps, fresh?.[0]?.[1] ?? []);
}

/**
 * Records worker events from the Redis stream into SQLite, then fans them out to socket.io rooms.
 * Uses a consumer group with acknowledgements: an entry is acknowledged only after it is in SQLite,
 * so a web process killed mid-way re-reads its pending entries on the next start and loses nothing.
 */
export function createRecorder(deps: RecorderDeps) {
  const consumer = deps.consumer ?? "web";
  let running = false;
  let loop: Promise<void> | null = null;

  return {
    drainOnce: (blockMs: number) => drainOnce({ deps, consumer, blockMs }),
    async start(): Promise<void> {
      await ensureGroup(deps.redis);
      running = true;
      loop = (async () => {
        let failing = false; // one line when reading starts failing (e.g. Redis is down), one when it works again
        while (running) {
          try {
            await drainOnce({ deps, consumer, blockMs: deps.blockMs ?? 2000 });
            if (failing) deps.log("recorder: reading events again");
            failing = false;
          } catch (error) {
            if (!running) break;
            if (!failing) deps.log(`recorder: ${messageOf(error)}; retrying every second`);
            failing = true;
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        }
      })();
    },
    async stop(): Promise<void> {
      running = false;
      deps.redis.disconnect();
      await loop;
    },
  };
}
