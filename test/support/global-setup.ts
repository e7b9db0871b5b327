import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startPrivateRedis, type PrivateRedis } from "../../src/server/redis/private-redis";

let redis: PrivateRedis | null = null;
let dir: string | null = null;
const startedAt = Date.now();

/** One real Redis for the whole run (a private redis-server on a unix socket), shared by the test files. */
export async function setup(project: TestProject): Promise<void> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-test-redis-"));
  redis = await startPrivateRedis({ dataDir: dir });
  project.provide("redisUrl", redis.url);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  // the temp dirs this run's tests made (test/support/temp.ts names them iw-*), so repeated runs do not fill /tmp
  const tmp = os.tmpdir();
  for (const entry of fs.readdirSync(tmp)) {
    if (!entry.startsWith("iw-")) continue;
    const full = path.join(tmp, entry);
    try {
      if (fs.lstatSync(full).birthtimeMs >= startedAt) fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // already gone, or not ours to remove
    }
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
