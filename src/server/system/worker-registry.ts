import type { Redis } from "ioredis";
import { z } from "zod";

/** Workers announce themselves with a heartbeat key that expires when they stop beating. */
const KEY_PREFIX = "invariant:worker:";
export const HEARTBEAT_INTERVAL_MS = 5_000;
const HEARTBEAT_TTL_SECONDS = 15;

export const workerInfoSchema = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  concurrency: z.number().int(),
  version: z.string(),
  startedAt: z.string(),
  lastSeen: z.string(),
});
export type WorkerInfo = z.infer<typeof workerInfoSchema>;

export async function writeHeartbeat(redis: Redis, info: WorkerInfo): Promise<void> {
  await redis.set(`${KEY_PREFIX}${info.id}`, JSON.stringify(info), "EX", HEARTBEAT_TTL_SECONDS);
}

export async function removeHeartbeat(redis: Redis, workerId: string): Promise<void> {
  await redis.del(`${KEY_PREFIX}${workerId}`);
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
