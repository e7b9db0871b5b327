import type { ImageRegistry } from "../../core/runtime/registry-transfer";
import type { UploadLimits } from "../workers/upload-limits";
import path from "node:path";
import type { RecordedEvent } from "../../../shared/event-catalog";
import { loadOrCreateAccessToken } from "../access/access-token";
import { createAppServices, type AppServices } from "./app-services";
import { openDb, type Db } from "../../core/db/client";
import { applyMigrations } from "../../core/db/migrate";
import type { SupervisionSource } from "../system/health";
import { createRecorder } from "../events/recorder";
import { connectRedis } from "../../core/redis/connection";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { dataDirPaths } from "../../core/storage/data-dir";
import { createGarbageCollector, type GarbageCollector } from "../cleanup/garbage-collector";
import { createStorageReferenceQueries } from "../cleanup/storage-references.queries";
import type { SessionsOptions } from "./session-wiring";
import type { ModelAccessSettings } from "../../core/credentials/model-access";

/**
 * The composition root of the web side: the one place that opens the database (migrations first),
 * loads the admin token, wires the services and the event recorder. The launcher's web server, the
 * CLI commands that work without a dashboard, the test harnesses and the benchmarks all start here,
 * so they run the product exactly as it is wired in production.
 */

/** Opens the data dir's database with every committed migration applied. */
export async function openWebDatabase(options: {
  root: string;
  dataDir: string;
  log?: (message: string) => void;
}): Promise<Db> {
  const databaseFile = dataDirPaths(options.dataDir).database;
  const migrations = applyMigrations({ databaseFile, migrationsDir: path.join(options.root, "prisma", "migrations") });
  if (migrations.applied.length > 0) options.log?.(`database: applied ${migrations.applied.join(", ")}`);
  return openDb({ file: databaseFile });
}

export interface WebCoreOptions {
  /** The package root (its prisma/migrations are applied). */
  root: string;
  dataDir: string;
  redisUrl: string;
  /** Base URL of the dashboard without the token. */
  publicUrl: string;
  version: string;
  log?: (message: string) => void;
  /** Defaults to the Docker engine. */
  runtime?: ContainerRuntime;
  /** Global default base image for environments. */
  baseImage?: string;
  /** Author and committer of Apply as a branch's commits (default: invariant-web <invariant-web@localhost>). */
  branchIdentity?: { name: string; email: string };
  /** Terminal sessions: their model gateway, and the socket layer's callbacks. */
  sessions?: Partial<SessionsOptions>;
  /** Where model access comes from besides the stored key (the Setup page shows it). */
  modelAccess?: ModelAccessSettings;
  /** Defaults to the data dir's access token (created on first start). */
  adminToken?: string;
  /** Fans a recorded event out to socket.io rooms (the web server's socket layer). */
  emit?: (rooms: string[], event: RecordedEvent) => void;
  /** A viewer link or a browser session was revoked (its id): drop its open sockets. */
  onViewerRevoked?: (id: string) => void;
  /** How long a browser stays signed in; 30 days by default. */
  sessionMaxAgeMs?: number;
  /** How large an upload a worker on another host may send (default: upload-limits.ts). */
  workerUploadLimits?: Partial<UploadLimits>;
  /** The OCI registry images move through between hosts (absent: docker save over HTTP). */
  registry?: ImageRegistry;
  /** How long one recorder read blocks for new events (tests shorten it). */
  recorderBlockMs?: number;
  /** The launcher's supervised children (private Redis, worker), for health. */
  supervision?: SupervisionSource;
  /** The garbage collector: how often it runs with the upkeep (default 1 h), how old what it removes must be (default 1 h). */
  garbage?: { everyMs?: number; minAgeMs?: number };
}

export interface WebCore {
  db: Db;
  services: AppServices;
  adminToken: string;
  /** Removes workspaces, images, gateway sockets and folders that nothing refers to (see garbage-collector.ts). */
  garbage: GarbageCollector;
  /**
   * Starts the event recorder and, unless `upkeep` is false, the background upkeep (trial sweeper,
   * stalled builds, interrupted removals) every `sweepEveryMs`, and the garbage collector.
   */
  start(options?: { sweepEveryMs?: number; upkeep?: boolean }): Promise<void>;
  /** Stops the recorder and the services and closes the database. */
  close(): Promise<void>;
}

export async function openWebCore(options: WebCoreOptions): Promise<WebCore> {
  const log = options.log ?? (() => undefined);
  const db = await openWebDatabase({ root: options.root, dataDir: options.dataDir, log });
  const adminToken = options.adminToken ?? loadOrCreateAccessToken({ dataDir: options.dataDir });
  // the runtime re-owns and hands back only folders of the data dir (terminal sessions run from here)
  const runtime = options.runtime ?? createDockerRuntime({ dataDir: options.dataDir, log });
  const services = createAppServices({
    db,
    redisUrl: options.redisUrl,
    dataDir: options.dataDir,
    adminToken,
    publicUrl: options.publicUrl,
    version: options.version,
    runtime,
    sessionRuntime: (policy) => createDockerRuntime(policy),
    log,
    ...(options.baseImage ? { defaultBaseImage: options.baseImage } : {}),
    ...(options.branchIdentity ? { branchIdentity: options.branchIdentity } : {}),
    ...(options.sessions ? { sessions: options.sessions } : {}),
    ...(options.modelAccess ? { modelAccess: options.modelAccess } : {}),
    ...(options.onViewerRevoked ? { onViewerRevoked: options.onViewerRevoked } : {}),
    ...(options.sessionMaxAgeMs ? { sessionMaxAgeMs: options.sessionMaxAgeMs } : {}),
    ...(options.supervision ? { supervision: options.supervision } : {}),
    ...(options.workerUploadLimits ? { workerUploadLimits: options.workerUploadLimits } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  });
  const recorder = createRecorder({
    redis: connectRedis({ url: options.redisUrl, name: "invariant-recorder" }),
    events: services.events,
    emit: options.emit ?? (() => undefined),
    apply: (event, applyOptions) => services.recordEvent(event, applyOptions),
    log,
    ...(options.recorderBlockMs ? { blockMs: options.recorderBlockMs } : {}),
  });
  const storage = createStorageReferenceQueries(db);
  const garbage = createGarbageCollector({
    dataDir: options.dataDir,
    runtime,
    references: () => storage.references(),
    liveWorkers: async () => new Set((await services.system.workers()).map((worker) => worker.id)),
    ...(options.garbage?.minAgeMs === undefined ? {} : { minAgeMs: options.garbage.minAgeMs }),
    log,
  });
  return {
    db,
    services,
    adminToken,
    garbage,
    async start(startOptions = {}) {
      await recorder.start();
      if (startOptions.upkeep === false) return;
      services.start(startOptions.sweepEveryMs ? { sweepEveryMs: startOptions.sweepEveryMs } : {});
      garbage.start(options.garbage?.everyMs ?? 3600_000);
    },
    async close() {
      await garbage.stop();
      await recorder.stop();
      await services.close();
      await db.$disconnect();
    },
  };
}
