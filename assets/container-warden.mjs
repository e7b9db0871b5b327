// A worker's container warden: a small process of its own (worker/container-warden.ts starts it) that
// outlives the worker, so no container the worker started outlives the worker by more than seconds. It
// is started detached (its own session: a signal to the worker's process group or terminal misses it)
// with a pipe to the worker on stdin. The worker writes one line of settings, and "done" once its stop
// removed its containers itself. When the pipe closes without "done" (the worker was killed, crashed, or
// gave up on its stop) or the worker's pid stops being its parent, the warden removes every container
// labelled with the worker's id (its agents, evaluations, builds), then the worker's heartbeat key, and
// publishes the worker's `worker.offline`, so the dashboard's sweeper ends the worker's trials
// `interrupted` at once instead of after the key's TTL. Plain JavaScript: it runs as is from the package, next to the bundle, in tests and in production.
import readline from "node:readline";
import Docker from "dockerode";
import { Redis } from "ioredis";

const log = (message) => {
  try {
    process.stderr.write(`[invariant-warden] ${message}\n`);
  } catch {
    // nobody reads our stderr any more
  }
};
process.stderr.on("error", () => undefined);
process.stdin.on("error", () => undefined);

/** Docker's label filter for the worker's containers (container-spec.ts LABEL.worker). */
const WORKER_LABEL = "invariant.worker";
/** How long the Redis part may take: a Redis that died with the launcher must not keep the warden alive. */
const REDIS_DEADLINE_MS = 5_000;

let settings = null;
let done = false;
let acting = false;

/** One look for the worker's containers, each removed; returns how many went. */
async function removeContainers(docker, workerId) {
  const containers = await docker.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`${WORKER_LABEL}=${workerId}`] }),
  });
  let removed = 0;
  await Promise.all(
    containers.map((container) =>
      docker
        .getContainer(container.Id)
        .remove({ force: true, v: true })
        .then(() => (removed += 1))
        .catch((error) => {
          if (error?.statusCode !== 404 && !/already in progress/.test(String(error)))
            log(`could not remove ${container.Id.slice(0, 12)}: ${error?.message ?? String(error)}`);
        }),
    ),
  );
  return removed;
}

/** Drops the worker's heartbeat and publishes its `worker.offline` (the dashboard sweeps on it); false if Redis did not answer. */
async function forgetWorker(redisOptions, key, offline) {
  const redis = new Redis({
    ...redisOptions,
    connectionName: "invariant-warden",
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    const event = JSON.stringify({ ...offline.event, at: new Date().toISOString() });
    await Promise.race([
      redis.del(key).then(() => redis.xadd(offline.streamKey, "*", "event", event)),
      new Promise((_, reject) => setTimeout(() => reject(new Error("Redis did not answer")), REDIS_DEADLINE_MS)),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function act(why) {
  if (acting || done || !settings) return;
  acting = true;
  const started = Date.now();
  const { workerId, workerPid, heartbeatKey, redisOptions, offline } = settings;
  const docker = new Docker();
  let removed = 0;
  const look = async () => {
    try {
      removed += await removeContainers(docker, workerId);
    } catch (error) {
      log(`could not list worker ${workerId}'s containers: ${error?.message ?? String(error)}`);
    }
  };
  await look();
  // the containers are gone: the dashboard may end the trials now
  const forgotten = await forgetWorker(redisOptions, heartbeatKey, offline);
  // a create the worker sent just before it died may land after the first look: look again, briefly
  for (const waitMs of [1_000, 2_000]) {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    await look();
  }
  log(
    `worker ${workerId} (pid ${workerPid}) ${why}: removed its ${removed} containers (the last look ${Date.now() - started} ms after)` +
      (forgotten ? "; its trials are handed to recovery" : "; Redis did not answer, its heartbeat expires by itself"),
  );
  process.exit(0);
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (settings === null) {
    settings = JSON.parse(line);
    // the worker died before this started: our parent is already someone else
    if (process.ppid !== settings.workerPid) void act("was gone when its warden started");
    return;
  }
  if (line.trim() === "done") done = true;
});
lines.on("close", () => {
  if (done || settings === null) process.exit(0);
  void act("exited without removing its containers");
});
// the pipe is the signal; the parent check is a second one, should the pipe stay open somewhere
setInterval(() => {
  if (settings && process.ppid !== settings.workerPid) void act("is gone");
}, 1_000);
