import { spawnSync } from "node:child_process";
import type { Redis } from "ioredis";
import { REPO_ROOT, redisUrlFor, tempDir } from "./temp";
import type { AppServices } from "../../src/server/web/wiring/app-services";
import type { Db } from "../../src/server/core/db/client";
import { connectRedis } from "../../src/server/core/redis/connection";
import { openWebCore } from "../../src/server/web/wiring/web-core";

export const BASE_IMAGE = "invariant-base:bookworm";

/** The web side of the product in-process: real SQLite, real Redis, services and the event recorder. */
export interface WebSide {
  db: Db;
  dataDir: string;
  redisUrl: string;
  redis: Redis;
  services: AppServices;
  close(): Promise<void>;
}

export async function startWebSide(options: { redisBase: string; redisDb: number }): Promise<WebSide> {
  const dataDir = tempDir("data");
  const redisUrl = redisUrlFor(options.redisBase, options.redisDb);
  const redis = connectRedis({ url: redisUrl, name: "web-side" });
  await redis.flushdb();
  const core = await openWebCore({
    root: REPO_ROOT,
    dataDir,
    redisUrl,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    baseImage: BASE_IMAGE,
    recorderBlockMs: 100,
  });
  await core.start({ upkeep: false });
  return {
    db: core.db,
    dataDir,
    redisUrl,
    redis,
    services: core.services,
    async close() {
      await core.close();
      redis.disconnect();
    },
  };
}

export async function waitUntilBuilt(web: WebSide, versionId: string, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await web.db.environmentVersion.findUniqueOrThrow({ where: { id: versionId } });
    if (row.status !== "building") return row;
    if (Date.now() > deadline) throw new Error(`version ${versionId} still building after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs a command in a throwaway container with the docker CLI (an independent check of our runtime). */
export function dockerRun(
  image: string,
  script: string,
  args: string[] = ["--network", "none"],
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("docker", ["run", "--rm", ...args, image, "sh", "-c", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function dockerInspect(kind: "container" | "image", id: string): Record<string, unknown> | null {
  const result = spawnSync("docker", [kind, "inspect", id], { encoding: "utf8" });
  if (result.status !== 0) return null;
  return (JSON.parse(result.stdout) as Record<string, unknown>[])[0] ?? null;
}

export { tempDir };
