import { startPrivateRedis, type PrivateRedis } from "../../src/server/core/redis/private-redis";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import { openSessionWeb, type SessionWeb } from "./session-harness";
import { addCalendarProject, FAKE_KEY, scriptsDir, startMock, tempDir } from "./study-harness";

/** A private Redis, the mock model, a web core with terminal sessions, and a calendar project in it. */
export interface SessionStack {
  redis: PrivateRedis;
  mock: Awaited<ReturnType<typeof startMock>>;
  dataDir: string;
  projectId: string;
  /** The web core as it is now (restartWeb replaces it). */
  web: SessionWeb;
  /** Stops the web core and opens a new one on the same data dir and Redis (a restart of the dashboard). */
  restartWeb(): Promise<SessionWeb>;
  /** Finishes every session, then stops the web core, the mock model and Redis. */
  close(): Promise<void>;
}

export async function startSessionStack(options: {
  name: string;
  runtime: ContainerRuntime;
  projectDir: string;
  scripts?: Record<string, unknown>;
}): Promise<SessionStack> {
  const redis = await startPrivateRedis({ dataDir: tempDir(`${options.name}-redis`) });
  const scripts = scriptsDir(options.scripts ?? {});
  const mock = await startMock(scripts);
  const dataDir = tempDir(`${options.name}-data`);
  const open = () =>
    openSessionWeb({
      dataDir,
      redisUrl: redis.url,
      runtime: options.runtime,
      upstreamBaseUrl: mock.url,
      apiKey: FAKE_KEY,
      scriptsDir: scripts,
    });
  const web = await open();
  const projectId = await addCalendarProject({
    web: { db: web.core.db, services: web.core.services, emitted: [], close: () => Promise.resolve() },
    runtime: options.runtime,
    projectDir: options.projectDir,
  });
  const stack: SessionStack = {
    redis,
    mock,
    dataDir,
    projectId,
    web,
    async restartWeb() {
      await stack.web.close();
      stack.web = await open();
      return stack.web;
    },
    async close() {
      for (const session of await stack.web.core.services.sessions.list({}))
        await stack.web.core.services.sessions.finish(session.id).catch(() => undefined);
      await stack.web.close();
      await mock.close();
      await redis.stop();
    },
  };
  return stack;
}
