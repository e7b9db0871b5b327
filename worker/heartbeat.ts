import path from "node:path";
import { Worker as Thread } from "node:worker_threads";
import { packageRoot } from "../src/lib/package-info";
import { redisOptionsFromUrl } from "../src/server/redis/connection";
import { heartbeatKey, type HeartbeatTiming, type WorkerInfo } from "../src/server/system/worker-registry";

export interface Heartbeat {
  stop(): Promise<void>;
}

/**
 * Writes this worker's heartbeat key from a thread with its own Redis connection
 * (assets/heartbeat-thread.mjs), so a main event loop blocked for longer than the key's TTL does not get
 * the worker's trials interrupted. The main loop ticks the thread every interval; a loop silent for
 * `stallLimitMs` (hung, not busy) lets the heartbeat expire.
 */
export function startHeartbeat(options: {
  redisUrl: string;
  info: WorkerInfo;
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
  const ticker = setInterval(() => thread.postMessage("tick"), timing.intervalMs);
  const exited = new Promise<void>((resolve) => thread.once("exit", () => resolve()));
  return {
    async stop() {
      clearInterval(ticker);
      const stopped = new Promise<void>((resolve) => thread.once("message", () => resolve()));
      thread.postMessage("stop");
      await Promise.race([stopped, exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      await thread.terminate();
    },
  };
}
