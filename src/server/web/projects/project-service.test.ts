import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDb, tempDir } from "../../../../test/support/temp";
import type { Db } from "../../core/db/client";
import { DEFAULT_RUN_TOKEN_BUDGET, GIB, updateProjectInputSchema } from "../../../shared/project-schemas";
import { createProjectQueries } from "./projects.queries";
import { createProjectService, type ProjectService } from "./project-service";

let db: Db;
let dataDir: string;
let service: ProjectService;
const host = { cpus: 4, memoryBytes: 16 * GIB };

beforeAll(async () => {
  ({ db, dataDir } = await migratedDb());
  service = createProjectService({ projects: createProjectQueries(db), dataDir, host });
});
afterAll(() => db.$disconnect());

async function projectCount(): Promise<number> {
  return db.project.count();
}

describe("adding a project", () => {
  it("stores the real path, a default name and defaults that fit the host", async () => {
    const dir = tempDir("proj");
    fs.symlinkSync(dir, `${dir}-link`);
    const project = await service.add({ hostPath: `${dir}-link` });
    expect(project.hostPath).toBe(dir);
    expect(project.name).toBe(path.basename(dir));
    expect(project).toMatchObject({
      networkMode: "none",
      cpus: 2,
      memoryBytes: 4 * GIB,
      swapBytes: 0,
      pids: 512,
      baseImage: null,
    });
    expect((await service.list()).map((p) => p.id)).toContain(project.id);
  });

  it.each([
    ["a relative path", "relative/dir", /not an absolute path/],
    ["a missing path", "/definitely/not/here", /does not exist/],
  ])("refuses %s and writes nothing", async (_label, hostPath, message) => {
    const before = await projectCount();
    await expect(service.add({ hostPath })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      field: "hostPath",
      message: expect.stringMatching(message) as unknown,
    });
    expect(await projectCount()).toBe(before);
  });

  it("refuses a file that is not a directory", async () => {
    const file = path.join(tempDir("file"), "notes.txt");
    fs.writeFileSync(file, "x");
    await expect(service.add({ hostPath: file })).rejects.toThrow(/is a file, not a directory/);
  });

  it("refuses an unreadable directory", async () => {
    const dir = tempDir("locked");
    const denying = createProjectService({
      projects: createProjectQueries(db),
      dataDir,
      host,
      checkReadable: () => Promise.reject(Object.assign(new Error("EACCES"), { code: "EACCES" })),
    });
    const before = await projectCount();
    await expect(denying.add({ hostPath: dir })).rejects.toThrow(/not readable by this user/);
    expect(await projectCount()).toBe(before);
  });

  it("refuses a directory already added, by its real path", async () => {
    const dir = tempDir("twice");
    await service.add({ hostPath: dir, name: "first" });
    await expect(service.add({ hostPath: `${dir}/.` })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining('"first"') as unknown,
    });
  });

  it("refuses the data dir, anything inside it, and anything containing it", async () => {
    const inside = path.join(dataDir, "projects", "x");
    fs.mkdirSync(inside, { recursive: true });
    await expect(service.add({ hostPath: dataDir })).rejects.toThrow(/inside invariant-web's data directory/);
    await expect(service.add({ hostPath: inside })).rejects.toThrow(/inside invariant-web's data directory/);
    await expect(service.add({ hostPath: path.dirname(dataDir) })).rejects.toThrow(
      /contains invariant-web's data directory/,
    );
  });
});

describe("settings", () => {
  it("updates settings and keeps bytes exact beyond 32 bits", async () => {
    const project = await service.add({ hostPath: tempDir("settings") });
    const updated = await service.update({
      id: project.id,
      settings: {
        networkMode: "internet",
        memoryBytes: 6 * GIB + 1,
        swapBytes: GIB,
        pids: 1024,
        baseImage: "invariant-base:bookworm",
        defaultConfiguration: { harness: "codex", model: "gpt-x", reasoningEffort: "high", instructions: "" },
      },
    });
    expect(updated).toMatchObject({
      networkMode: "internet",
      memoryBytes: 6 * GIB + 1,
      swapBytes: GIB,
      pids: 1024,
      baseImage: "invariant-base:bookworm",
    });
    expect((await service.get(project.id)).defaultConfiguration.reasoningEffort).toBe("high");
  });

  it("keeps the gateway's budget and hosted-tools setting per project: defaults, updates, and a refused budget", async () => {
    const project = await service.add({ hostPath: tempDir("gateway-settings") });
    expect(project).toMatchObject({ runTokenBudget: DEFAULT_RUN_TOKEN_BUDGET, allowHostedTools: false });
    const updated = await service.update({
      id: project.id,
      settings: { runTokenBudget: 250_000, allowHostedTools: true },
    });
    expect(updated).toMatchObject({ runTokenBudget: 250_000, allowHostedTools: true, networkMode: "none" });
    // an update that does not name them keeps them
    expect(await service.update({ id: project.id, settings: { pids: 256 } })).toMatchObject({
      runTokenBudget: 250_000,
      allowHostedTools: true,
    });
    // the API's input schema refuses a budget below one request's worth
    const refused = updateProjectInputSchema.safeParse({ id: project.id, settings: { runTokenBudget: 10 } });
    expect(refused.success ? null : refused.error.issues[0]?.message).toMatch(/At least 1,000 tokens/);
  });

  it("refuses limits beyond this host and leaves the project unchanged", async () => {
    const project = await service.add({ hostPath: tempDir("limits") });
    await expect(service.update({ id: project.id, settings: { cpus: 8 } })).rejects.toMatchObject({
      field: "cpus",
      message: expect.stringContaining("4 CPUs") as unknown,
    });
    await expect(service.update({ id: project.id, settings: { memoryBytes: 32 * GIB } })).rejects.toMatchObject({
      field: "memoryBytes",
    });
    expect(await service.get(project.id)).toEqual(project);
  });

  it("reports a missing project clearly", async () => {
    await expect(service.get("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
