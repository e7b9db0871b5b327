import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { connectRedis, probeRedis, redisOptionsFromUrl } from "./connection";
import { startPrivateRedis } from "./private-redis";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("private Redis", () => {
  it("listens only on a unix socket in the data dir, keeps an AOF, and stops completely", async () => {
    const dataDir = tempDir("redis");
    const redis = await startPrivateRedis({ dataDir });
    expect(redis.url).toBe(`unix://${path.join(dataDir, "redis", "redis.sock")}`);
    const client = connectRedis({ url: redis.url, name: "t" });
    expect(await client.config("GET", "port")).toEqual(["port", "0"]);
    expect(await client.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
    await client.rpush("queued", "work");
    client.disconnect();
    await redis.stop();
    expect(alive(redis.pid)).toBe(false);
    // queued work survives a restart
    const again = await startPrivateRedis({ dataDir });
    const reader = connectRedis({ url: again.url, name: "t2" });
    expect(await reader.lrange("queued", 0, -1)).toEqual(["work"]);
    reader.disconnect();
    await again.stop();
  });

  it("stops a Redis left behind by a launcher that was killed", async () => {
    const dataDir = tempDir("redis");
    const first = await startPrivateRedis({ dataDir });
    // simulate a crashed launcher: its Redis is still running, the next start must replace it
    const second = await startPrivateRedis({ dataDir });
    await expect.poll(() => alive(first.pid)).toBe(false);
    await expect(probeRedis({ url: second.url })).resolves.toMatchObject({ version: expect.any(String) as unknown });
    await second.stop();
    expect(fs.existsSync(path.join(dataDir, "redis", "redis.pid"))).toBe(false);
  });

  it("fails with install advice when redis-server is missing", async () => {
    await expect(
      startPrivateRedis({ dataDir: tempDir("redis"), redisServer: "/nonexistent/redis-server" }),
    ).rejects.toThrow(/Could not run \/nonexistent\/redis-server.*apt-get install redis-server.*--redis-url/);
  });

  it("parses every supported Redis URL form and refuses others", () => {
    expect(redisOptionsFromUrl("unix:///tmp/r.sock?db=3")).toEqual({ path: "/tmp/r.sock", db: 3 });
    expect(redisOptionsFromUrl("redis://user:p%40ss@host:6380/2")).toMatchObject({
      host: "host",
      port: 6380,
      username: "user",
      password: "p@ss",
      db: 2,
    });
    expect(redisOptionsFromUrl("rediss://host")).toMatchObject({ host: "host", port: 6379, tls: {} });
    expect(() => redisOptionsFromUrl("http://host")).toThrow(/Unsupported Redis URL/);
  });
});
