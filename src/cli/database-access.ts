import fs from "node:fs";
import type { Db } from "../server/core/db/client";
import { dataDirPaths } from "../server/core/storage/data-dir";
import { isProcessAlive } from "../lib/process-alive";

/**
 * The one rule for CLI commands that touch the database. The web process is its only writer, so:
 *  - when a launcher runs for the data dir (launcher.json names a live pid), a command goes through the
 *    running dashboard's HTTP API with the admin token from <dataDir>/access-token (dashboard-client.ts);
 *  - otherwise it opens the database itself, holding the data-dir lock for as long as it needs it: a
 *    launcher started meanwhile refuses to start and says why, and migrations are applied as the
 *    launcher would apply them.
 */

/** The pid of a live launcher for this data dir, or null. */
export function runningLauncher(dataDir: string): number | null {
  try {
    const held = JSON.parse(fs.readFileSync(dataDirPaths(dataDir).launcherFile, "utf8")) as { pid?: unknown };
    return typeof held.pid === "number" && held.pid !== process.pid && isProcessAlive(held.pid) ? held.pid : null;
  } catch {
    return null;
  }
}

export interface OfflineDatabase {
  db: Db;
  /** Disconnects and releases the data-dir lock. */
  close(): Promise<void>;
}

/**
 * Opens the data dir's database under the data-dir lock, for a command run while no dashboard runs.
 * A data dir without a database is refused (nothing is created there): `whatFor` finishes the sentence
 * "There is no invariant-web data in DIR: …".
 */
export async function openDatabaseOffline(options: {
  dataDir: string;
  root: string;
  whatFor: string;
}): Promise<OfflineDatabase> {
  const { dataDir } = options;
  if (!fs.existsSync(dataDirPaths(dataDir).database))
    throw new Error(`There is no invariant-web data in ${dataDir}: ${options.whatFor}. Check --data-dir.`);
  const [{ lockDataDir }, { openWebDatabase }] = await Promise.all([
    import("./data-dir-lock"),
    import("../server/web/wiring/web-core"),
  ]);
  const lock = lockDataDir(dataDir);
  try {
    const db = await openWebDatabase({ root: options.root, dataDir });
    return {
      db,
      async close() {
        await db.$disconnect();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
