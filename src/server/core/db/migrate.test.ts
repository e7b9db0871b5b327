import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_DIR, tempDir } from "../../../../test/support/temp";
import { openDb } from "./client";
import { applyMigrations } from "./migrate";

describe("migrations at startup", () => {
  it("creates a fresh database, then is a no-op on an up-to-date one", async () => {
    const file = path.join(tempDir("migrate"), "invariant.db");
    const first = applyMigrations({ databaseFile: file, migrationsDir: MIGRATIONS_DIR });
    expect(first.applied.length).toBeGreaterThan(0);
    expect(applyMigrations({ databaseFile: file, migrationsDir: MIGRATIONS_DIR })).toEqual({
      applied: [],
      alreadyApplied: first.applied.length,
    });
    const db = await openDb({ file });
    // every model of the schema is usable against the migrated tables
    const project = await db.project.create({ data: { name: "p", hostPath: "/p" } });
    const env = await db.environmentVersion.create({
      data: { projectId: project.id, version: 1, imageTag: "t", origin: "base", active: true },
    });
    const study = await db.study.create({
      data: {
        projectId: project.id,
        title: "s",
        taskPrompt: "t",
        testCommand: "npm test",
        environmentVersionId: env.id,
      },
    });
    const configuration = await db.configuration.create({ data: { studyId: study.id, position: 1, model: "m" } });
    const trial = await db.trial.create({ data: { studyId: study.id, configurationId: configuration.id } });
    await db.evaluationResult.create({ data: { trialId: trial.id, position: 1, name: "adds", status: "passed" } });
    await db.artifact.create({ data: { kind: "diff", path: "a", sizeBytes: 1n, sha256: "x", trialId: trial.id } });
    await db.session.create({ data: { projectId: project.id, kind: "shell" } });
    await db.snapshot.create({ data: { id: "sha", projectId: project.id, fileCount: 1, bytes: 1n } });
    await db.applyRecord.create({
      data: { projectId: project.id, appliedBy: "admin", outcome: "applied", files: "[]" },
    });
    await db.eventLog.create({ data: { streamId: "1-0", type: "x", payload: "{}" } });
    await db.viewerLink.create({ data: { label: "l", tokenHash: "h" } });
    expect(await db.trial.count()).toBe(1);
    const mode = await db.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
    expect(mode[0]?.journal_mode).toBe("wal");
    await db.$disconnect();
  });

  it("refuses a migration edited after it was applied", () => {
    const dir = tempDir("migrations");
    fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const file = path.join(tempDir("migrate"), "invariant.db");
    applyMigrations({ databaseFile: file, migrationsDir: dir });
    const name = fs.readdirSync(dir).find((entry) => fs.statSync(path.join(dir, entry)).isDirectory());
    fs.appendFileSync(path.join(dir, String(name), "migration.sql"), "\n-- edited\n");
    expect(() => applyMigrations({ databaseFile: file, migrationsDir: dir })).toThrow(
      /was changed after it was applied/,
    );
  });

  it("rolls back a failing migration completely", () => {
    const dir = tempDir("migrations");
    fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    fs.mkdirSync(path.join(dir, "99990101000000_broken"));
    fs.writeFileSync(
      path.join(dir, "99990101000000_broken", "migration.sql"),
      'CREATE TABLE "Half" ("id" TEXT);\nTHIS IS NOT SQL;',
    );
    const file = path.join(tempDir("migrate"), "invariant.db");
    expect(() => applyMigrations({ databaseFile: file, migrationsDir: dir })).toThrow();
    const sqlite = new Database(file);
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[];
    const recorded = sqlite.prepare('SELECT migration_name FROM "_prisma_migrations"').all() as {
      migration_name: string;
    }[];
    sqlite.close();
    expect(tables.map((t) => t.name)).not.toContain("Half");
    expect(recorded.map((r) => r.migration_name)).not.toContain("99990101000000_broken");
  });
});
