// A worker's heartbeat, on a thread of its own (worker/heartbeat.ts starts it). A main event loop that is
// busy — a huge file hashed synchronously, a big JSON.parse — cannot starve it, so the web process's
// sweeper does not take a busy worker for a dead one. The main loop says it is alive with a "tick"
// message; after `stallLimitMs` without one the worker is hung rather than busy, and the thread stops
// beating so its heartbeat expires and its trials are interrupted. Plain JavaScript: it runs as is from
// the package, next to the bundle, in tests and in production. A tick carries the worker's capacity
// (slots, running trials, memory, disk), which the following beats advertise.
import { parentPort, workerData } from "node:worker_threads";
import { Redis } from "ioredis";

const { redisOptions, key, info, intervalMs, ttlMs, stallLimitMs } = workerData;
const redis = new Redis({ ...redisOptions, connectionName: "invariant-worker-heartbeat", maxRetriesPerRequest: 1 });
redis.on("error", () => undefined); // a Redis outage: the next beat tries again

let heardAt = Date.now();
let capacity = info.capacity ?? null;
const beat = () => {
  if (Date.now() - heardAt > stallLimitMs) return;
  const value = JSON.stringify({ ...info, capacity, lastSeen: new Date().toISOString() });
  redis.set(key, value, "PX", ttlMs).catch(() => undefined);
};
beat();
const timer = setInterval(beat, intervalMs);

parentPort.on("message", (message) => {
  if (message?.type === "tick") {
    heardAt = Date.now();
    capacity = message.capacity;
    return;
  }
  if (message !== "stop") return;
  clearInterval(timer);
  // the beats already sent land before the worker removes its key
  void redis
    .quit()
    .catch(() => redis.disconnect())
    .finally(() => parentPort.postMessage("stopped"));
});
