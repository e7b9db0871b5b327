import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { redactRedisUrl, redisOptionsFromUrl } from "../redis/connection";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { runDoctor } from "./doctor";

/** Issue 15 item 8: a Redis password never reaches doctor output (which viewers read) or logs. */
describe("Redis URL redaction", () => {
  it("masks the password and keeps everything else", () => {
    expect(redactRedisUrl("redis://:s3cret@10.0.0.2:6379/2")).toBe("redis://:***@10.0.0.2:6379/2");
    expect(redactRedisUrl("rediss://app:s3cret@redis.internal:6380")).toBe("rediss://app:***@redis.internal:6380");
    expect(redactRedisUrl("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
    expect(redactRedisUrl("unix:///tmp/redis.sock?db=3")).toBe("unix:///tmp/redis.sock?db=3");
    expect(redactRedisUrl("redis://:s3cret@[bad")).not.toContain("s3cret");
  });

  it("keeps the password out of an unsupported-URL error", () => {
    expect(() => redisOptionsFromUrl("http://:s3cret@127.0.0.1:1")).toThrow(/Unsupported Redis URL/);
    try {
      redisOptionsFromUrl("http://:s3cret@127.0.0.1:1");
    } catch (error) {
      expect(String(error)).not.toContain("s3cret");
    }
  });

  it("keeps the password out of the doctor's report when Redis cannot be reached", async () => {
    const report = await runDoctor({
      runtime: createDockerRuntime({ socketPath: "/nonexistent/docker.sock", timeoutMs: 200 }),
      dataDir: tempDir("doctor-redis"),
      redisUrl: "redis://:s3cret-password@127.0.0.1:1",
    });
    const redis = report.checks.find((check) => check.id === "redis");
    expect(redis?.status).toBe("fail");
    expect(redis?.detail).toContain("127.0.0.1:1");
    expect(JSON.stringify(report)).not.toContain("s3cret-password");
  });
});
