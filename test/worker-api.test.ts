import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDashboardChannel } from "../src/server/core/artifacts/dashboard-channel";
import { hasSnapshot, receiveSnapshot } from "../src/server/core/artifacts/snapshot-transfer";
import { createSnapshot } from "../src/server/core/snapshots/snapshot-store";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { createWorkspace } from "../src/server/core/workspaces/workspace-store";
import { ADMIN_TOKEN, rawRequest, startHttpHarness, type HttpHarness } from "./support/http-harness";
import { startJobTaker } from "./support/leased-jobs";
import { redisUrlFor, tempDir } from "./support/temp";
import { createJobQueue } from "../src/server/core/jobs/job-queue";

/**
 * Issue 17, point 1 (worker tokens) and the worker API's transport, through the product's request handler
 * on real SQLite and Redis: a worker token opens /api/worker/… and nothing else, the admin token does not
 * open the worker API, a revoked token is refused at once with a sentence saying so, and a snapshot
 * fetched over HTTP (under the lease of a job that names it) makes the same workspace in another data dir.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 14);
const queue = createJobQueue({ redisUrl: REDIS_URL });
let app: HttpHarness;
let taker: ReturnType<typeof startJobTaker>;
beforeAll(async () => {
  app = await startHttpHarness({ redisUrl: REDIS_URL });
  taker = startJobTaker({ redisUrl: REDIS_URL, queue });
});
afterAll(async () => {
  await taker?.close();
  await queue.close();
  await app?.close();
});

const get = (pathname: string, token: string) =>
  rawRequest({ port: app.port, path: pathname, headers: { authorization: `Bearer ${token}` } });

describe("worker tokens", () => {
  it("open the worker API only, are listed with their last use, and are refused at once once revoked", async () => {
    const { token, worker } = await app.services.workers.tokens.create({ name: "box-2" });
    expect(token).toMatch(/^w_/);
    // stored hashed: the token itself is nowhere in the database
    const row = await app.db.workerToken.findUniqueOrThrow({ where: { id: worker.id } });
    expect(row.tokenHash).not.toContain(token);
    expect(row.lastUsedAt).toBeNull();

    const hello = await get("/api/worker/hello", token);
    expect(hello.status).toBe(200);
    expect(JSON.parse(hello.body)).toMatchObject({ worker: "box-2", version: "test" });
    const [listed] = await app.services.workers.tokens.list();
    expect(listed).toMatchObject({ name: "box-2", revokedAt: null });
    expect(listed?.lastUsedAt).not.toBeNull();

    // nothing of the admin or viewer API
    expect((await get("/api/trpc/system.whoami", token)).status).toBe(401);
    expect((await get("/projects", token)).status).toBe(401);
    // and the admin token does not open the worker API
    const admin = await get("/api/worker/hello", ADMIN_TOKEN);
    expect(admin.status).toBe(401);
    expect(admin.body).toContain("not a worker token");

    await app.services.workers.tokens.revoke(worker.id);
    const refused = await get("/api/worker/hello", token);
    expect(refused.status).toBe(401);
    expect((JSON.parse(refused.body) as { error: { message: string } }).error.message).toMatch(
      /worker token "box-2" was revoked/,
    );

    // the worker's side of it: told once, with the dashboard's sentence
    const told: string[] = [];
    const channel = createDashboardChannel({ dashboardUrl: app.base, token, onRefused: (m) => told.push(m) });
    await expect(channel.json("/api/worker/hello")).rejects.toThrow(/refused this worker's token/);
    await expect(channel.json("/api/worker/hello")).rejects.toThrow(/refused/);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/revoked/);
  });

  it("checks every input: a malformed id is refused with what was wrong, a call without a job lease too", async () => {
    const { token } = await app.services.workers.tokens.create({ name: "box-3" });
    const bad = await get("/api/worker/snapshots/..%2F..%2Fetc", token);
    expect(bad.status).toBe(400);
    expect((JSON.parse(bad.body) as { error: { message: string } }).error.message).toMatch(/sha256/);
    const image = await get("/api/worker/images/ubuntu", token);
    expect(image.status).toBe(400);
    // a well-formed call names the job it is for (issue 23: test/hostile-remote-worker.test.ts)
    const unleased = await get(`/api/worker/snapshots/${"a".repeat(64)}`, token);
    expect(unleased.status).toBe(403);
    expect((JSON.parse(unleased.body) as { error: { message: string } }).error.message).toMatch(/names no job/);
  });
});

describe("snapshots over the worker API", () => {
  it("a snapshot fetched into another data dir makes the same workspace", async () => {
    const project = tempDir("wapi-project");
    fs.mkdirSync(path.join(project, "src"));
    fs.writeFileSync(path.join(project, "src", "a.js"), "export const a = 1;\n");
    fs.writeFileSync(path.join(project, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    fs.symlinkSync("src/a.js", path.join(project, "link.js"));
    const row = await app.db.project.create({ data: { name: "wapi", hostPath: project } });
    const { manifest } = await createSnapshot({ projectRoot: project, projectId: row.id, dataDir: app.dataDir });
    // the preflight of a study on it, taken by this worker: its lease opens the snapshot
    await app.db.snapshot.create({ data: { id: manifest.id, projectId: row.id, fileCount: 2, bytes: 40 } });
    const study = await app.db.study.create({
      data: {
        projectId: row.id,
        title: "wapi",
        taskPrompt: "-",
        testCommand: "true",
        snapshotId: manifest.id,
        imageId: null,
      },
    });
    const lease = await taker.takePreflightJob({
      project: row,
      study,
      snapshotId: manifest.id,
      sha256: "0".repeat(64),
      image: "sha256:" + "0".repeat(64),
      trials: [],
    });
    const { token } = await app.services.workers.tokens.create({ name: "box-4" });
    const channel = createDashboardChannel({ dashboardUrl: app.base, token, onRefused: () => undefined });

    const remote = tempDir("wapi-remote");
    await receiveSnapshot({
      dataDir: remote,
      snapshotId: manifest.id,
      source: await channel.fetch(`/api/worker/snapshots/${manifest.id}`, lease),
    });
    expect(hasSnapshot({ dataDir: remote, snapshotId: manifest.id })).toBe(true);
    const workspace = await createWorkspace({ dataDir: remote, snapshotId: manifest.id });
    expect(fs.readFileSync(path.join(workspace.path, "src", "a.js"), "utf8")).toBe("export const a = 1;\n");
    expect(fs.statSync(path.join(workspace.path, "run.sh")).mode & 0o111).not.toBe(0);
    expect(fs.readlinkSync(path.join(workspace.path, "link.js"))).toBe("src/a.js");
    // its .git borrows this data dir's copy of the objects, not the dashboard's
    const alternates = fs.readFileSync(path.join(workspace.path, ".git", "objects", "info", "alternates"), "utf8");
    expect(alternates.trim()).toBe(dataDirPaths(remote).snapshot(manifest.id).gitObjects);

    // a wrong id in the answer is refused before anything is kept
    await expect(
      receiveSnapshot({
        dataDir: tempDir("wapi-wrong"),
        snapshotId: "b".repeat(64),
        source: await channel.fetch(`/api/worker/snapshots/${manifest.id}`, lease),
      }),
    ).rejects.toThrow(/manifest names/);
  });
});
