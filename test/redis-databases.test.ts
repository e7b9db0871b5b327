import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/temp";

/**
 * Test files run side by side on the one shared test Redis (test/support/global-setup.ts), and many of them
 * empty their database (flushdb) or run a BullMQ worker on it: two files on one database would wipe each
 * other's queues or take each other's jobs. So every file names a database of its own, and this test holds it.
 */
const DATABASES = 48; // src/server/core/redis/private-redis.ts starts the test Redis with --databases 48
const FORMS = [
  /redisUrlFor\(inject\("redisUrl"\), *(\d+)\)/g,
  /redisBase: inject\("redisUrl"\), redisDb: *(\d+)/g,
] as const;

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts") && !file.includes("node_modules"))
    .map((file) => path.join(dir, file));
}

/** Which database each file uses; a use of the shared URL in no known form is reported, not guessed. */
function databasesOf(file: string, text: string): { databases: number[]; unknown: number } {
  const databases = FORMS.flatMap((form) => [...text.matchAll(form)].map((match) => Number(match[1])));
  const injections = text.split('inject("redisUrl")').length - 1;
  return { databases: [...new Set(databases)], unknown: injections - databases.length };
}

describe("the shared test Redis", () => {
  it("gives every test file a database of its own", () => {
    const users = new Map<number, string[]>();
    const unreadable: string[] = [];
    const self = path.relative(REPO_ROOT, import.meta.filename);
    for (const file of ["src", "worker", "test"].flatMap(testFiles).filter((file) => file !== self)) {
      const { databases, unknown } = databasesOf(file, fs.readFileSync(path.join(REPO_ROOT, file), "utf8"));
      if (unknown > 0) unreadable.push(file);
      for (const db of databases) users.set(db, [...(users.get(db) ?? []), file]);
    }
    expect(unreadable, 'use redisUrlFor(inject("redisUrl"), N) or redisDb: N').toEqual([]);
    expect([...users.entries()].filter(([, files]) => files.length > 1)).toEqual([]);
    expect([...users.keys()].filter((db) => db >= DATABASES)).toEqual([]);
    expect(users.size).toBeGreaterThan(20); // the scan found the files that use it
  });
});
