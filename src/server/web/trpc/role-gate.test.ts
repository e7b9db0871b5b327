import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { migratedDb, redisUrlFor, tempDir } from "../../../../test/support/temp";
import { createAppServices, type AppServices } from "../wiring/app-services";
import type { Db } from "../../core/db/client";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { appRouter } from "./app-router";
import { createCallerFactory } from "./init";

let db: Db;
let services: AppServices;
const createCaller = createCallerFactory(appRouter);

beforeAll(async () => {
  const { db: database, dataDir } = await migratedDb();
  db = database;
  services = createAppServices({
    db,
    redisUrl: redisUrlFor(inject("redisUrl"), 20),
    dataDir,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: createDockerRuntime(),
    sessionRuntime: (policy) => createDockerRuntime(policy),
  });
});
afterAll(async () => {
  await services.close();
  await db.$disconnect();
});

const admin = () => createCaller({ identity: { role: "admin", subject: "admin" }, services });
const viewer = () => createCaller({ identity: { role: "viewer", subject: "link" }, services });

/** Every mutation in the router, found by walking it, so a new mutation cannot escape the gate. */
function mutationPaths(): string[] {
  return Object.entries(appRouter._def.procedures)
    .filter(([, procedure]) => (procedure as unknown as { _def: { type: string } })._def.type === "mutation")
    .map(([procedurePath]) => procedurePath);
}

describe("viewer role", () => {
  it("is refused FORBIDDEN on every mutation, before any input is read", async () => {
    const paths = mutationPaths();
    expect(paths).toEqual(
      expect.arrayContaining([
        "projects.add",
        "projects.update",
        "projects.remove",
        "system.createViewerLink",
        "system.revokeViewerLink",
        "system.selfcheck",
      ]),
    );
    const caller = viewer() as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
    for (const procedurePath of paths) {
      const [namespace = "", name = ""] = procedurePath.split(".");
      await expect(
        caller[namespace]?.[name]?.({ id: "x", hostPath: tempDir("v"), label: "x", settings: {} }),
        procedurePath,
      ).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect(await db.project.count()).toBe(0);
    expect(await db.viewerLink.count()).toBe(0);
  });

  it("can read everything", async () => {
    await admin().projects.add({ hostPath: tempDir("readable") });
    const projects = await viewer().projects.list();
    expect(projects).toHaveLength(1);
    await expect(viewer().projects.get({ id: projects[0]?.id ?? "" })).resolves.toMatchObject({ id: projects[0]?.id });
    await expect(viewer().system.whoami()).resolves.toMatchObject({ role: "viewer" });
  });
});

describe("errors", () => {
  it("maps domain errors to their code with the field they concern", async () => {
    await expect(admin().projects.add({ hostPath: "/does/not/exist" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("does not exist") as unknown,
    });
    await expect(admin().projects.get({ id: "missing" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
  it("rejects out-of-range settings at the boundary with a message per field", async () => {
    const project = await admin().projects.add({ hostPath: tempDir("range") });
    await expect(admin().projects.update({ id: project.id, settings: { pids: 5 } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("At least 16 processes") as unknown,
    });
    await expect(
      admin().projects.update({ id: project.id, settings: { baseImage: "Not An Image!" } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(admin().projects.get({ id: project.id })).resolves.toMatchObject({ pids: 512, baseImage: null });
  });
});

describe("viewer links", () => {
  it("identifies a viewer until the link is revoked; only the hash is stored", async () => {
    const { url, link } = await admin().system.createViewerLink({ label: "Dana" });
    const token = new URL(url).searchParams.get("token") ?? "";
    expect(token).toMatch(/^v_/);
    await expect(services.access.identifyToken(token)).resolves.toEqual({ role: "viewer", subject: link.id });
    const stored = await db.viewerLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(stored.tokenHash).not.toContain(token);
    await admin().system.revokeViewerLink({ id: link.id });
    await expect(services.access.identifyToken(token)).resolves.toBeNull();
    await expect(services.access.identifyToken("a_admintokenadmintokenadmintoken00")).resolves.toMatchObject({
      role: "admin",
    });
    await expect(services.access.identifyToken("a_wrong")).resolves.toBeNull();
  });
});
