import { spawn } from "node:child_process";
import path from "node:path";
import { packageRoot } from "../src/lib/package-info";
import { redisOptionsFromUrl } from "../src/server/core/redis/connection";
import { heartbeatKey } from "../src/server/core/redis/worker-registry";
import { EVENT_STREAM_KEY } from "../src/server/core/events/event-stream";
import { EVENT_CATALOG_VERSION, invariantEventSchema } from "../src/shared/event-catalog";

export interface ContainerWarden {
  /** The worker's stop removed its containers and heartbeat itself: the warden leaves without acting. */
  release(): void;
}

/**
 * Starts this worker's container warden (assets/container-warden.mjs): a detached process that removes
 * every container labelled with the worker's id, and the worker's heartbeat key, once the worker is gone
 * without having done so itself — killed with SIGKILL, crashed, or past its stop's deadline — and then
 * publishes the worker's `worker.offline`. So a running agent is bounded by its worker's life, and the
 * dashboard's sweeper, which runs at once on that event, ends the worker's trials `interrupted`.
 */
export function startContainerWarden(options: {
  workerId: string;
  host: string;
  redisUrl: string;
  log: (message: string) => void;
}): ContainerWarden {
  const child = spawn(process.execPath, [path.join(packageRoot(), "assets", "container-warden.mjs")], {
    detached: true,
    stdio: ["pipe", "ignore", "inherit"],
  });
  child.on("error", (error) => options.log(`container warden: ${error.message}`));
  child.stdin.on("error", () => undefined);
  child.stdin.write(
    `${JSON.stringify({
      workerId: options.workerId,
      workerPid: process.pid,
      heartbeatKey: heartbeatKey(options.workerId),
      redisOptions: redisOptionsFromUrl(options.redisUrl),
      // what the warden publishes after its cleanup (it sets `at`): the dashboard sweeps at once on it
      offline: {
        streamKey: EVENT_STREAM_KEY,
        event: invariantEventSchema.parse({
          type: "worker.offline",
          workerId: options.workerId,
          data: {
            host: options.host,
            pid: process.pid,
            reason: "its process ended without stopping (container warden)",
          },
          v: EVENT_CATALOG_VERSION,
          at: new Date().toISOString(),
        }),
      },
    })}\n`,
  );
  // neither the warden nor its pipe keeps the worker's process alive
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    release() {
      child.stdin.end("done\n");
    },
  };
}
