import fs from "node:fs";
import { startWorker } from "../../worker/main";
import type { WorkerOptions } from "../../worker/worker-options";
import { pruneArtifactCache } from "../server/core/artifacts/artifact-cache";
import { guardStandardStreams, writeQuietly } from "../lib/standard-streams";
import type { CliConfig } from "./config";
import { messageOf } from "../shared/error-message";

const log = (message: string) => writeQuietly(process.stderr, `[invariant-worker] ${message}\n`);

/** INVARIANT_WORKER_MIN_FREE_DISK_MIB / _MEMORY_MIB in bytes; unset ones keep the worker's defaults (worker/capacity.ts). */
function floorsOf(config: CliConfig): WorkerOptions["floors"] {
  const { disk, memory } = config.workerFloorsMib;
  return {
    ...(disk === null ? {} : { diskFreeBytes: disk * 1024 ** 2 }),
    ...(memory === null ? {} : { memoryAvailableBytes: memory * 1024 ** 2 }),
  };
}

/** A remote worker's token: from its file (which should be private to this user) or the environment. */
function workerToken(remote: NonNullable<CliConfig["remote"]>): string {
  if (!remote.tokenFile) return remote.token ?? "";
  let text: string;
  try {
    text = fs.readFileSync(remote.tokenFile, "utf8");
  } catch (error) {
    throw new Error(
      `Cannot read the worker token file ${remote.tokenFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      { cause: error },
    );
  }
  if ((fs.statSync(remote.tokenFile).mode & 0o077) !== 0)
    log(`${remote.tokenFile} can be read by other users; chmod 600 it (it holds this worker's token)`);
  const token = text.trim();
  if (!/^w_[A-Za-z0-9_-]{20,200}$/.test(token))
    throw new Error(
      `${remote.tokenFile} does not hold a worker token (w_…). Create one on the dashboard's System page and put it in the file.`,
    );
  return token;
}

/** A worker on another host, before it takes jobs: what it fetched and no job used lately goes (fetched again when needed). */
async function pruneCache(config: CliConfig): Promise<void> {
  const pruned = await pruneArtifactCache({ dataDir: config.dataDir, maxAgeDays: config.workerCacheDays }).catch(
    (error: unknown) => {
      log(`could not prune the artifact cache: ${messageOf(error)}`);
      return null;
    },
  );
  if (pruned && pruned.snapshots.length + pruned.studies.length + pruned.dependencies.length > 0)
    log(
      `removed ${pruned.snapshots.length} cached snapshots, the test files of ${pruned.studies.length} studies and ${pruned.dependencies.length} installed dependency folders unused for ${config.workerCacheDays} days`,
    );
}

/** `invariant-web worker`: a worker that joins through Redis (as the launcher's child, or standalone). */
export async function runWorkerCommand(options: { config: CliConfig; version: string }): Promise<void> {
  const { config } = options;
  guardStandardStreams(); // a log reader that went away (the launcher's terminal, a closed pipe) never stops a worker
  if (!config.redisUrl) {
    throw new Error(
      `A standalone worker needs the dashboard's Redis: pass --redis-url (env REDIS_URL). ${config.child ? "" : `For a private Redis, start invariant-web itself.`}`,
    );
  }
  // Stop requests are listened for before the worker starts: a launcher killed while its worker is
  // still starting must not leave the worker running forever (its 'disconnect' fires only once).
  let stopReason: string | null = null;
  let starting: Promise<{ stop(reason: string): Promise<void> }> | null = null;
  const stop = (reason: string) => {
    if (stopReason !== null) return;
    stopReason = reason;
    // never linger: if a graceful stop hangs, exit anyway (the reconciler cleans up what is left)
    setTimeout(() => process.exit(1), 20_000).unref();
    const stopped = starting ? starting.then((worker) => worker.stop(reason)) : Promise.resolve();
    stopped
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log(`stop failed: ${String(error)}`);
        process.exit(1);
      });
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(signal));
  // as the launcher's child: exit when the launcher goes away, even if it was killed
  if (config.child) {
    process.on("disconnect", () => stop("launcher exited"));
    if (!process.connected) stop("launcher exited");
  }
  if (stopReason !== null) return;
  const dashboard = config.remote
    ? { url: config.remote.dashboardUrl, token: workerToken(config.remote), registry: config.registry }
    : null;
  if (dashboard) await pruneCache(config);
  starting = startWorker({
    ...(dashboard ? { dashboard, onSelfStop: stop } : {}),
    redisUrl: config.redisUrl,
    dataDir: config.dataDir,
    concurrency: config.concurrency,
    floors: floorsOf(config),
    version: options.version,
    modelGateway: config.modelGateway,
    hostCa: config.hostCa,
    workspaceKind: config.workspaceKind,
    log,
  });
  await starting;
}
