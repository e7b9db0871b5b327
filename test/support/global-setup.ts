import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startPrivateRedis, type PrivateRedis } from "../../src/server/core/redis/private-redis";

let redis: PrivateRedis | null = null;
let dir: string | null = null;
/** This run's mark in temp dir names (test/support/temp.ts reads it), so teardown removes only its own. */
const run = randomBytes(4).toString("hex");
process.env.INVARIANT_TEST_RUN = run;

/** One real Redis for the whole run (a private redis-server on a unix socket), shared by the test files. */
export async function setup(project: TestProject): Promise<void> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-test-redis-"));
  redis = await startPrivateRedis({ dataDir: dir });
  project.provide("redisUrl", redis.url);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  // the temp dirs this run's tests made (test/support/temp.ts names them iw-<run>-*), so repeated runs do not fill /tmp;
  // another run's (or a benchmark's) dirs are left alone
  const tmp = os.tmpdir();
  for (const entry of fs.readdirSync(tmp)) {
    if (entry.startsWith(`iw-${run}-`)) fs.rmSync(path.join(tmp, entry), { recursive: true, force: true });
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
