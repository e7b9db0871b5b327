import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../../generated/prisma/client";
import { sqliteBindingOptions } from "./sqlite-binding";

export type Db = PrismaClient;

/**
 * Opens the SQLite database through the better-sqlite3 driver adapter (Prisma's JS engine: nothing
 * is downloaded). WAL lets readers run beside the single writer, the web process.
 */
export async function openDb(options: { file: string }): Promise<Db> {
  const adapter = new PrismaBetterSQLite3({ url: `file:${options.file}`, timeout: 5000, ...sqliteBindingOptions() });
  const db = new PrismaClient({ adapter });
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$queryRawUnsafe("PRAGMA foreign_keys = ON");
  await db.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  return db;
}
