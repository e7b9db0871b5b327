import type { Redis } from "ioredis";
import type { HealthReport } from "../../../shared/system-health";
import { EVENT_STREAM_KEY, RECORDER_GROUP } from "./event-stream";
import { listWorkers, type WorkerInfo } from "../redis/worker-registry";

type RecorderBacklog = HealthReport["recorder"];

/** What health and the System page read of the queue's Redis: that it answers, the workers online, the recorder's backlog. */
export interface QueueProbe {
  /** False while the connection is known to be down (reconnecting, closed): an outage now, with no ping to wait for. */
  connected(): boolean;
  ping(): Promise<unknown>;
  workers(): Promise<WorkerInfo[]>;
  recorderBacklog(): Promise<RecorderBacklog>;
}

/** The recorder group's backlog: XINFO GROUPS gives `lag` (not yet read) and `pending` (read, not acknowledged). */
async function recorderBacklog(redis: Redis): Promise<RecorderBacklog> {
  const groups = (await redis.xinfo("GROUPS", EVENT_STREAM_KEY).catch(() => [])) as unknown[][];
  for (const group of groups) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
    if (fields.get("name") !== RECORDER_GROUP) continue;
    const number = (value: unknown) => (typeof value === "number" ? value : null);
    return { lag: number(fields.get("lag")), pending: number(fields.get("pending")) };
  }
  return { lag: null, pending: null };
}

/** The probe on a Redis connection (the wiring builds it; health never sees the connection). */
export function redisQueueProbe(redis: Redis): QueueProbe {
  return {
    connected: () => redis.status === "ready",
    ping: () => redis.ping(),
    workers: () => listWorkers(redis),
    recorderBacklog: () => recorderBacklog(redis),
  };
}
