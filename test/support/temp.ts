import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "../../src/server/core/db/client";
import { openWebDatabase } from "../../src/server/web/wiring/web-core";

export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");
export const MIGRATIONS_DIR = path.join(REPO_ROOT, "prisma", "migrations");

/** A new temp dir, marked with the test run (see global-setup.ts) so that run's teardown removes it. */
export function tempDir(prefix: string): string {
  const run = process.env.INVARIANT_TEST_RUN;
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), run ? `iw-${run}-${prefix}-` : `iw-${prefix}-`)));
}

/** A real SQLite file with every committed migration applied. */
export async function migratedDb(): Promise<{ db: Db; dataDir: string; file: string }> {
  const dataDir = tempDir("data");
  const db = await openWebDatabase({ root: REPO_ROOT, dataDir });
  return { db, dataDir, file: path.join(dataDir, "invariant.db") };
}

/** The shared test Redis, on a database of the test file's own so parallel files never see each other's keys. */
export function redisUrlFor(base: string, db: number): string {
  return `${base}?db=${db}`;
}
