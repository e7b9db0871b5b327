import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { connectRedis } from "../../core/redis/connection";
import { startPrivateRedis, type PrivateRedis } from "../../core/redis/private-redis";
import { checkHealth } from "./health";
import { removeHeartbeat, writeHeartbeat, type WorkerInfo } from "../../core/jobs/worker-registry";

let server: PrivateRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("health-redis") }); // the shared Redis's databases are all taken
  redis = connectRedis({ url: server.url, name: "health-test" });
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

const worker = (id: string, remoteAs: string | null): WorkerInfo => ({
  id,
  host: remoteAs ? "build-box-2" : "dashboard-host",
  pid: 1,
  concurrency: 2,
  version: "test",
  startedAt: new Date().toISOString(),
  lastSeen: new Date().toISOString(),
  remoteAs,
  capacity: null,
});

const REMOTE_ONLY = /^Every worker online is on another host: environment builds, image removals and agent runs wait/;

describe("health with workers on other hosts", () => {
  it("says builds wait when every worker online is on another host, and nothing once one shares the data dir", async () => {
    expect((await checkHealth({ redis, supervision: [] })).problems).toEqual([
      expect.stringMatching(/^No worker is online/),
    ]);
    await writeHeartbeat(redis, worker("remote-1", "build-box-2"));
    const remoteOnly = await checkHealth({ redis, supervision: [] });
    expect(remoteOnly.status).toBe("degraded");
    expect(remoteOnly.problems).toEqual([expect.stringMatching(REMOTE_ONLY)]);
    await writeHeartbeat(redis, worker("local-1", null));
    const both = await checkHealth({ redis, supervision: [] });
    expect(both).toMatchObject({ status: "ok", problems: [], workers: { online: 2 } });
    await removeHeartbeat(redis, "remote-1");
    expect((await checkHealth({ redis, supervision: [] })).status).toBe("ok");
  });
});
