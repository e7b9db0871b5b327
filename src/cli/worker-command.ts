import { startWorker } from "../../worker/main";
import type { CliConfig } from "./config";

const log = (message: string) => process.stderr.write(`[invariant-worker] ${message}\n`);

/** `invariant-web worker`: a worker that joins through Redis (as the launcher's child, or standalone). */
export async function runWorkerCommand(options: { config: CliConfig; version: string }): Promise<void> {
  const { config } = options;
  if (!config.redisUrl) {
    throw new Error(`A standalone worker needs the dashboard's Redis: pass --redis-url (env REDIS_URL). ${config.child ? "" : `For a private Redis, start invariant-web itself.`}`);
  }
  const worker = await startWorker({ redisUrl: config.redisUrl, dataDir: config.dataDir, concurrency: config.concurrency, version: options.version, modelGateway: config.modelGateway, log });
  const stop = (reason: string) => {
    // never linger: if a graceful stop hangs, exit anyway (the reconciler cleans up what is left)
    setTimeout(() => process.exit(1), 20_000).unref();
    worker
      .stop(reason)
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log(`stop failed: ${String(error)}`);
        process.exit(1);
      });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  // as the launcher's child: exit when the launcher goes away, even if it was killed
  if (config.child) process.on("disconnect", () => stop("launcher exited"));
}
