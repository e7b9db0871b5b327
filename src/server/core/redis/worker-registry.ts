import type { Redis } from "ioredis";
import { z } from "zod";

/** Workers announce themselves with a heartbeat key that expires when they stop beating. */
const KEY_PREFIX = "invariant:worker:";

/** How a worker beats: how often, how long a beat lasts, and how long its main loop may be silent. */
export interface HeartbeatTiming {
  intervalMs: number;
  /** The key's TTL: a worker not heard from for this long counts as gone (its trials are interrupted). */
  ttlMs: number;
  /** A main event loop silent this long is hung, not busy: the heartbeat stops (see worker/heartbeat.ts). */
  stallLimitMs: number;
}

export const DEFAULT_HEARTBEAT: HeartbeatTiming = { intervalMs: 5_000, ttlMs: 15_000, stallLimitMs: 10 * 60_000 };

export const heartbeatKey = (workerId: string) => `${KEY_PREFIX}${workerId}`;

const bytes = z.number().int().nonnegative();

/**
 * What a worker has room for, measured by the worker every beat (worker/capacity.ts): its host's CPUs and
 * memory, the free disk of its data dir, its slots (BullMQ concurrency) and what runs in them, and
 * whether it takes new jobs. `accepting` is false while a slot count or a floor keeps it from pulling
 * (`pausedReason` says which); see docs/architecture.md, "Placement".
 */
export const workerCapacitySchema = z.object({
  cpus: z.number().int().positive(),
  memoryTotalBytes: bytes,
  memoryAvailableBytes: bytes,
  /** Free bytes (for an unprivileged user) of the file system holding the worker's data dir. */
  diskFreeBytes: bytes,
  slots: z.number().int().positive(),
  /** Jobs running now (trials, preflights, builds, self-checks). */
  busySlots: z.number().int().nonnegative(),
  /** The trials among them (trial ids). */
  runningTrials: z.array(z.string()),
  accepting: z.boolean(),
  pausedReason: z.string().nullable(),
  /** Under either floor the worker stops pulling jobs (INVARIANT_WORKER_MIN_FREE_DISK_MIB / _MEMORY_MIB). */
  floors: z.object({ diskFreeBytes: bytes, memoryAvailableBytes: bytes }),
  measuredAt: z.string(),
});
export type WorkerCapacity = z.infer<typeof workerCapacitySchema>;

export const workerInfoSchema = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  concurrency: z.number().int(),
  version: z.string(),
  startedAt: z.string(),
  lastSeen: z.string(),
  /**
   * A worker on another host (--dashboard-url): the name of the worker token it connected with; null for a
   * worker that shares the dashboard's data dir and engine (or one of an older version).
   */
  remoteAs: z.string().nullable().catch(null).default(null),
  /** Null for a worker of an older version (it beats without figures; it still counts as alive). */
  capacity: workerCapacitySchema.nullable().catch(null),
});
export type WorkerInfo = z.infer<typeof workerInfoSchema>;

export async function writeHeartbeat(redis: Redis, info: WorkerInfo, ttlMs = DEFAULT_HEARTBEAT.ttlMs): Promise<void> {
  await redis.set(heartbeatKey(info.id), JSON.stringify(info), "PX", ttlMs);
}

export async function removeHeartbeat(redis: Redis, workerId: string): Promise<void> {
  await redis.del(heartbeatKey(workerId));
}

export async function listWorkers(redis: Redis): Promise<WorkerInfo[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${KEY_PREFIX}*`, "COUNT", 100);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  return values
    .flatMap((value) => {
      if (!value) return [];
      const parsed = workerInfoSchema.safeParse(JSON.parse(value));
      return parsed.success ? [parsed.data] : [];
    })
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
