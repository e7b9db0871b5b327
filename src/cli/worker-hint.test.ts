import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { workerHint } from "./worker-hint";

describe("the worker hint", () => {
  it("names the data dir and the Redis URL, so following it gives a worker of this dashboard", () => {
    expect(
      workerHint({ dataDir: "/home/ana/.local/share/invariant-web", redisUrl: "unix:///d/redis/redis.sock" }),
    ).toBe(
      "invariant-web worker --data-dir /home/ana/.local/share/invariant-web --redis-url unix:///d/redis/redis.sock",
    );
  });

  it("quotes a data dir a shell would split, and masks a password", () => {
    const hint = workerHint({ dataDir: "/tmp/my data/it's", redisUrl: "redis://:s3cret@redis:6379/2" });
    expect(hint).not.toContain("s3cret");
    expect(hint).toContain("with the Redis password in place of ***");
    const command = hint.replace(/ \(with .*\)$/, "");
    const words = spawnSync("sh", ["-c", `printf '%s\\n' ${command}`], {
      encoding: "utf8",
    }).stdout;
    expect(words.split("\n").filter(Boolean)).toEqual([
      "invariant-web",
      "worker",
      "--data-dir",
      "/tmp/my data/it's",
      "--redis-url",
      "redis://:***@redis:6379/2",
    ]);
  });
});
