import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { redisUrlFor, tempDir } from "../../../../test/support/temp";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { runDoctor } from "./doctor";

describe("doctor", () => {
  it("passes on this machine's real Docker engine, Redis and Codex binary", async () => {
    const report = await runDoctor({
      runtime: createDockerRuntime(),
      dataDir: tempDir("doctor"),
      redisUrl: redisUrlFor(inject("redisUrl"), 25),
      minFreeBytes: 1,
    });
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ["node", "ok"],
      ["docker", "ok"],
      ["redis", "ok"],
      ["disk", "ok"],
      ["codex", "ok"],
      ["claude-code", "ok"],
      ["gemini-cli", "ok"],
      ["certificates", "ok"],
    ]);
    expect(report.ok).toBe(true);
  });

  it("fails with a fix for each missing requirement", async () => {
    const notADirectory = path.join(tempDir("doctor"), "file");
    fs.writeFileSync(notADirectory, "");
    const report = await runDoctor({
      runtime: createDockerRuntime({ socketPath: "/nonexistent/docker.sock", timeoutMs: 500 }),
      dataDir: path.join(notADirectory, "data"),
      redisUrl: "unix:///nonexistent/redis.sock",
      nodeVersion: "v18.0.0",
      agentClis: { nodeCacheDir: tempDir("doctor-node-cache") },
    });
    expect(report.ok).toBe(false);
    for (const id of ["node", "docker", "redis", "disk"]) {
      const check = report.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe("fail");
      expect(check?.fix, id).toBeTruthy();
    }
    // an agent CLI missing is a warning, not a reason the dashboard opens on the checklist
    expect(report.checks.find((c) => c.id === "gemini-cli")).toMatchObject({ status: "warn", required: false });
  });

  it("warns when the data dir is short of space", async () => {
    const report = await runDoctor({
      runtime: createDockerRuntime(),
      dataDir: tempDir("doctor"),
      redisUrl: redisUrlFor(inject("redisUrl"), 25),
      minFreeBytes: Number.MAX_SAFE_INTEGER,
    });
    expect(report.checks.find((c) => c.id === "disk")).toMatchObject({
      status: "warn",
      fix: expect.stringContaining("Free some space") as unknown,
    });
  });
});
