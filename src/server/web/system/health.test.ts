import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { connectRedis } from "../../core/redis/connection";
import { startPrivateRedis, type PrivateRedis } from "../../core/redis/private-redis";
import { checkHealth } from "./health";
import { redisQueueProbe } from "../../core/events/queue-probe";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { removeHeartbeat, writeHeartbeat, type WorkerInfo } from "../../core/redis/worker-registry";

let server: PrivateRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("health-redis") }); // the shared Redis's databases are all taken
  redis = connectRedis({ url: server.url, name: "health-test" });
  await redis.ping(); // connected: health counts a connection still being opened as down
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
    expect((await checkHealth({ queue: redisQueueProbe(redis), supervision: [] })).problems).toEqual([
      expect.stringMatching(/^No worker is online/),
    ]);
    await writeHeartbeat(redis, worker("remote-1", "build-box-2"));
    const remoteOnly = await checkHealth({ queue: redisQueueProbe(redis), supervision: [] });
    expect(remoteOnly.status).toBe("degraded");
    expect(remoteOnly.problems).toEqual([expect.stringMatching(REMOTE_ONLY)]);
    await writeHeartbeat(redis, worker("local-1", null));
    const both = await checkHealth({ queue: redisQueueProbe(redis), supervision: [] });
    expect(both).toMatchObject({ status: "ok", problems: [], workers: { online: 2 } });
    await removeHeartbeat(redis, "remote-1");
    expect((await checkHealth({ queue: redisQueueProbe(redis), supervision: [] })).status).toBe("ok");
  });
});

/** Runs the event loop's current task for `ms` without yielding (a busy dashboard under load). */
function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: no timer, no I/O callback runs meanwhile
  }
}

describe("health under load (issue 24, point 7)", () => {
  it("counts a ping answered while the event loop was blocked past the deadline as an answer, not an outage", async () => {
    await writeHeartbeat(redis, worker("busy-1", null));
    for (let round = 0; round < 3; round++) {
      const report = checkHealth({ queue: redisQueueProbe(redis), supervision: [] });
      // the answer arrives during the block; the 1 s deadline expires during it too
      blockLoop(1500);
      const seen = await report;
      expect(seen.redis.reachable, `round ${round}`).toBe(true);
      expect(seen.problems.join(" ")).not.toMatch(/Redis is not reachable/);
    }
    await removeHeartbeat(redis, "busy-1");
  });
});

describe("health reports Docker (issue 24, point 3)", () => {
  it("names the engine's version when it answers, and says Docker is not reachable, with what to do, when it does not", async () => {
    await writeHeartbeat(redis, worker("docker-1", null));
    const up = await checkHealth({
      queue: redisQueueProbe(redis),
      supervision: [],
      docker: () => createDockerRuntime().version(),
    });
    expect(up).toMatchObject({ status: "ok", docker: { reachable: true, error: null } });
    expect(up.docker.version).toMatch(/^\d+\./);

    const missing = createDockerRuntime({ socketPath: "/nonexistent-invariant-test.sock" });
    const down = await checkHealth({ queue: redisQueueProbe(redis), supervision: [], docker: () => missing.version() });
    expect(down.status).toBe("degraded");
    expect(down.docker).toMatchObject({ reachable: false, version: null });
    expect(down.problems).toEqual([
      expect.stringMatching(
        /^Docker is not reachable from the dashboard \(connect ENOENT \/nonexistent-invariant-test\.sock\): .*Start the Docker engine/,
      ),
    ]);
    await removeHeartbeat(redis, "docker-1");
  });
});
