import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { sqliteBindingOptions } from "./sqlite-binding";

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies the committed migrations in prisma/migrations to a SQLite file, recording them in
 * Prisma's own `_prisma_migrations` table so `prisma migrate status` agrees. Runs in-process at
 * startup: an up-to-date database costs one small query; no Prisma CLI is spawned.
 * Each migration runs in a transaction: a failure leaves the database as it was.
 */
export function applyMigrations(options: { databaseFile: string; migrationsDir: string }): MigrationReport {
  const sqlite = new Database(options.databaseFile, sqliteBindingOptions());
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
    const done = new Map(
      (
        sqlite
          .prepare(
            `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
          )
          .all() as { migration_name: string; checksum: string }[]
      ).map((row) => [row.migration_name, row.checksum]),
    );
    const names = readdirSync(options.migrationsDir, { withFileTypes: true })
      .filter(
        (entry) => entry.isDirectory() && existsSync(path.join(options.migrationsDir, entry.name, "migration.sql")),
      )
      .map((entry) => entry.name)
      .sort();
    const applied: string[] = [];
    for (const name of names) {
      const sql = readFileSync(path.join(options.migrationsDir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const recorded = done.get(name);
      if (recorded !== undefined) {
        if (recorded !== checksum) {
          throw new Error(
            `Migration ${name} was changed after it was applied to ${options.databaseFile}. Restore the original file; add changes as a new migration.`,
          );
        }
        continue;
      }
      sqlite.transaction(() => {
        sqlite.exec(sql);
        sqlite
          .prepare(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
          )
          .run(randomUUID(), checksum, name, Date.now(), Date.now());
      })();
      applied.push(name);
    }
    return { applied, alreadyApplied: names.length - applied.length };
  } finally {
    sqlite.close();
  }
}
