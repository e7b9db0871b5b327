import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startPrivateRedis, type PrivateRedis } from "../../src/server/redis/private-redis";

let redis: PrivateRedis | null = null;
let dir: string | null = null;

/** One real Redis for the whole run (a private redis-server on a unix socket), shared by the test files. */
export async function setup(project: TestProject): Promise<void> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-test-redis-"));
  redis = await startPrivateRedis({ dataDir: dir });
  project.provide("redisUrl", redis.url);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
