import path from "node:path";
import { Worker as Thread } from "node:worker_threads";
import { packageRoot } from "../src/lib/package-info";
import { redisOptionsFromUrl } from "../src/server/core/redis/connection";
import {
  heartbeatKey,
  type HeartbeatTiming,
  type WorkerCapacity,
  type WorkerInfo,
} from "../src/server/core/redis/worker-registry";

export interface Heartbeat {
  /** Hands the thread the worker's current capacity at once (a job started or ended); it goes out with the next beat. */
  update(): void;
  stop(): Promise<void>;
}

/**
 * Writes this worker's heartbeat key from a thread with its own Redis connection
 * (assets/heartbeat-thread.mjs), so a main event loop blocked for longer than the key's TTL does not get
 * the worker's trials interrupted. The main loop ticks the thread every interval; a loop silent for
 * `stallLimitMs` (hung, not busy) lets the heartbeat expire. Each tick carries the worker's capacity
 * (slots, running trials, memory, disk: worker/capacity.ts), so every beat advertises the latest figures.
 */
export function startHeartbeat(options: {
  redisUrl: string;
  info: WorkerInfo;
  /** The figures each beat carries, read on the main thread at every tick. */
  capacity: () => WorkerCapacity;
  timing: HeartbeatTiming;
  log: (message: string) => void;
}): Heartbeat {
  const { timing } = options;
  const thread = new Thread(path.join(packageRoot(), "assets", "heartbeat-thread.mjs"), {
    workerData: {
      redisOptions: redisOptionsFromUrl(options.redisUrl),
      key: heartbeatKey(options.info.id),
      info: options.info,
      intervalMs: timing.intervalMs,
      ttlMs: timing.ttlMs,
      stallLimitMs: timing.stallLimitMs,
    },
  });
  thread.on("error", (error) => options.log(`heartbeat: ${error.message}`));
  thread.unref();
  const tick = () => thread.postMessage({ type: "tick", capacity: options.capacity() });
  const ticker = setInterval(tick, timing.intervalMs);
  const exited = new Promise<void>((resolve) => thread.once("exit", () => resolve()));
  return {
    update: tick,
    async stop() {
      clearInterval(ticker);
      const stopped = new Promise<void>((resolve) => thread.once("message", () => resolve()));
      thread.postMessage("stop");
      await Promise.race([stopped, exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      await thread.terminate();
    },
  };
}
