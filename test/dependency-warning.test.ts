import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectRedis } from "../src/server/core/redis/connection";
import {
  addCalendarProject,
  createDockerRuntime,
  openStudyWeb,
  redisUrlFor,
  REPO_ROOT,
  tempDir,
  type StudyWeb,
} from "./support/study-harness";

/**
 * The dependency warning is true or absent (issue 26, point 6): on the real stack (SQLite, Redis, a ready
 * environment of the real agent image), a project whose package.json declares no package, or whose
 * requirements.txt holds only comments, needs no install and is not told that tests will fail to load;
 * once a package is declared, the warning is back.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 28);
const runtime = createDockerRuntime();
let web: StudyWeb;

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "dependency-warning-test" });
  await redis.flushdb();
  redis.disconnect();
  web = await openStudyWeb({ dataDir: tempDir("dep-warning-data"), redisUrl: REDIS_URL, runtime });
}, 300_000);

afterAll(async () => {
  await web.close();
});

async function projectOf(files: Record<string, string>): Promise<{ dir: string; projectId: string }> {
  const dir = path.join(tempDir("dep-warning"), "project");
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return { dir, projectId: await addCalendarProject({ web, runtime, projectDir: dir }) };
}

describe("the dependency warning", () => {
  it("a package.json without dependencies (the calendar project) needs no install; declaring one brings the warning", async () => {
    const dir = path.join(tempDir("dep-warning"), "calendar");
    fs.cpSync(path.join(REPO_ROOT, "fixtures", "calendar-project"), dir, { recursive: true });
    const projectId = await addCalendarProject({ web, runtime, projectDir: dir });
    const quiet = await web.services.dependencies.status(projectId);
    expect(quiet).toMatchObject({ step: { command: "npm install" }, nothingToInstall: true, warning: null });

    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...pkg, devDependencies: { vitest: "^3" } }));
    const warned = await web.services.dependencies.status(projectId);
    expect(warned.nothingToInstall).toBe(false);
    expect(warned.warning).toMatch(/^package\.json is here but the environment has no installed dependencies/);
  });

  it("an empty lockfile keeps it quiet; a lockfile with packages, a runtime pin or an edited step does not", async () => {
    const emptyLock = JSON.stringify({
      name: "p",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "p" } },
    });
    const { dir, projectId } = await projectOf({ "package.json": '{"name":"p"}', "package-lock.json": emptyLock });
    expect(await web.services.dependencies.status(projectId)).toMatchObject({ nothingToInstall: true, warning: null });

    const fullLock = JSON.stringify({ lockfileVersion: 3, packages: { "": {}, "node_modules/dayjs": {} } });
    fs.writeFileSync(path.join(dir, "package-lock.json"), fullLock);
    expect((await web.services.dependencies.status(projectId)).warning).toMatch(/no installed dependencies/);

    fs.writeFileSync(path.join(dir, "package-lock.json"), emptyLock);
    fs.writeFileSync(path.join(dir, ".nvmrc"), "22\n");
    expect((await web.services.dependencies.status(projectId)).nothingToInstall).toBe(false);
    fs.rmSync(path.join(dir, ".nvmrc"));

    const edited = { kind: "command" as const, command: "echo hi", outputs: [], manifests: ["package.json"] };
    const status = await web.services.dependencies.setStep({ projectId, step: edited });
    expect(status).toMatchObject({ edited: true, nothingToInstall: false });
    expect(status.warning).toMatch(/no installed dependencies/);
  });

  it("a requirements.txt of comments and blank lines needs no install; a requirement brings the warning", async () => {
    const { dir, projectId } = await projectOf({ "requirements.txt": "# nothing yet\n\n   # really\n" });
    expect(await web.services.dependencies.status(projectId)).toMatchObject({
      step: { kind: "python" },
      nothingToInstall: true,
      warning: null,
    });
    fs.appendFileSync(path.join(dir, "requirements.txt"), "requests==2.32.3  # http\n");
    const warned = await web.services.dependencies.status(projectId);
    expect(warned).toMatchObject({ nothingToInstall: false });
    expect(warned.warning).toMatch(/^requirements\.txt is here but the environment has no installed dependencies/);
  });
});
