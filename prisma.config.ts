import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

// Used by the Prisma CLI only (generate, migrate diff/status). The app applies migrations itself
// at startup (src/server/core/db/migrate.ts). PRISMA_CLI_DB points the CLI at a database file.
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  adapter() {
    return Promise.resolve(new PrismaBetterSQLite3({ url: process.env.PRISMA_CLI_DB ?? "file:./.data/cli.db" }));
  },
});
