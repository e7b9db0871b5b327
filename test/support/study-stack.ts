import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import { startWorker, type RunningWorker } from "../../worker/main";
import type { WorkerOptions } from "../../worker/worker-options";
import { connectRedis, FAKE_KEY, openStudyWeb, scriptsDir, startMock, tempDir, type StudyWeb } from "./study-harness";

/** The whole study stack of an integration test: the web side, a worker with its model gateway, the mock model. */
export interface StudyStack {
  dataDir: string;
  mock: Awaited<ReturnType<typeof startMock>>;
  web: StudyWeb;
  worker: RunningWorker;
  close(): Promise<void>;
}

/**
 * A worker of the stack (its data dir, its model gateway on the stack's mock model); more than one can run
 * in this process, as further workers on the same host would.
 */
export function startStackWorker(options: {
  redisUrl: string;
  dataDir: string;
  mock: { url: string };
  concurrency: number;
  heartbeat?: WorkerOptions["heartbeat"];
  floors?: WorkerOptions["floors"];
  /** Pins the workspace kind (tests of what a copy workspace's tree holds); else chosen by the probe. */
  workspaceKind?: WorkerOptions["workspaceKind"];
}): Promise<RunningWorker> {
  return startWorker({
    redisUrl: options.redisUrl,
    dataDir: options.dataDir,
    concurrency: options.concurrency,
    version: "test",
    modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("host-codex"), upstreamBaseUrl: options.mock.url },
    log: () => undefined,
    ...(options.heartbeat ? { heartbeat: options.heartbeat } : {}),
    ...(options.floors ? { floors: options.floors } : {}),
    ...(options.workspaceKind ? { workspaceKind: options.workspaceKind } : {}),
  });
}

/**
 * Starts the stack on a fresh data dir and an emptied Redis database: the mock model serves the shipped
 * scripts plus `scripts`, the worker's gateway forwards to it with the test key.
 */
export async function startStudyStack(options: {
  name: string;
  redisUrl: string;
  runtime: ContainerRuntime;
  scripts: Record<string, unknown>;
  concurrency: number;
  /** The worker's heartbeat timing (shortened by tests of the sweeper). */
  heartbeat?: WorkerOptions["heartbeat"];
  workspaceKind?: WorkerOptions["workspaceKind"];
}): Promise<StudyStack> {
  const redis = connectRedis({ url: options.redisUrl, name: `${options.name}-test` });
  await redis.flushdb();
  redis.disconnect();
  const dataDir = tempDir(`${options.name}-data`);
  const mock = await startMock(scriptsDir(options.scripts));
  const web = await openStudyWeb({ dataDir, redisUrl: options.redisUrl, runtime: options.runtime });
  const worker = await startStackWorker({ ...options, dataDir, mock });
  return {
    dataDir,
    mock,
    web,
    worker,
    close: async () => {
      await worker.stop("test finished");
      await web.close();
      await mock.close();
    },
  };
}
