import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  BASE_IMAGE,
  dockerInspect,
  dockerRun,
  startWebSide,
  tempDir,
  waitUntilBuilt,
  type WebSide,
} from "../../../../test/support/environment-harness";
import { startWorker, type RunningWorker } from "../../../../worker/main";
import { unusedModelGateway } from "../../../../test/support/agent-image";

let web: WebSide;
let worker: RunningWorker;
let projectId: string;

beforeAll(async () => {
  web = await startWebSide({ redisBase: inject("redisUrl"), redisDb: 22 });
  worker = await startWorker({
    redisUrl: web.redisUrl,
    dataDir: web.dataDir,
    concurrency: 2,
    version: "test",
    modelGateway: unusedModelGateway(tempDir("codex-home")),
    log: () => undefined,
  });
  projectId = (await web.services.projects.add({ hostPath: tempDir("env-project") })).id;
  await web.services.projects.update({
    id: projectId,
    settings: { cpus: 1, memoryBytes: 512 * 1024 * 1024, pids: 256 },
  });
});
afterAll(async () => {
  await worker.stop("test finished");
  const versions = await web.db.environmentVersion.findMany({ where: { projectId } });
  for (const v of versions) spawnSync("docker", ["rmi", "-f", v.imageTag], { stdio: "ignore" });
  await web.close();
});

/** The containers of any state that carry this environment version's label. */
function containersOf(versionId: string): string[] {
  const listed = spawnSync("docker", ["ps", "-aq", "--filter", `label=invariant.environment=${versionId}`], {
    encoding: "utf8",
  });
  expect(listed.status).toBe(0);
  return listed.stdout.split("\n").filter(Boolean);
}

describe("environment versions on the real Docker engine", () => {
  let v1: string;
  let v2: string;

  it("prepares version 1 from the base image with the Codex CLI and a home directory", async () => {
    const created = await web.services.environments.prepare(projectId);
    expect(created).toMatchObject({ version: 1, status: "building", origin: "base" });
    await expect(web.services.environments.prepare(projectId)).rejects.toMatchObject({ code: "CONFLICT" });
    const row = await waitUntilBuilt(web, created.id);
    expect(row.error).toBeNull();
    expect(row).toMatchObject({ status: "ready", active: true });
    expect(Number(row.sizeBytes)).toBeGreaterThan(100 * 1024 * 1024);
    v1 = created.id;
    const check = dockerRun(row.imageTag, "codex --version && test -d /root/.codex && test -d /workspace");
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/codex/i);
    const log = await web.services.environments.log(v1);
    expect(log).toContain("[1/3] installing the Codex CLI");
    const image = dockerInspect("image", row.imageTag) as { Config: { Labels: Record<string, string> } };
    expect(image.Config.Labels).toMatchObject({
      "invariant.managed": "true",
      "invariant.project": projectId,
      "invariant.environment": v1,
    });
  });

  it("prepares version 2 with a command; a container of version 1 does not have its tool", async () => {
    const created = await web.services.environments.prepareWithCommand(
      projectId,
      "printf '#!/bin/sh\\necho tool-from-v2\\n' > /usr/local/bin/mytool && chmod +x /usr/local/bin/mytool && echo installed",
    );
    const row = await waitUntilBuilt(web, created.id);
    expect(row).toMatchObject({ status: "ready", active: true, parentId: v1, origin: "command", version: 2 });
    expect(row.durationMs).toBeGreaterThan(0);
    v2 = created.id;
    expect(dockerRun(row.imageTag, "mytool").stdout.trim()).toBe("tool-from-v2");
    const v1Row = await web.db.environmentVersion.findUniqueOrThrow({ where: { id: v1 } });
    expect(v1Row.active).toBe(false);
    expect(dockerRun(v1Row.imageTag, "command -v mytool").status).not.toBe(0);
    expect(await web.services.environments.log(v2)).toContain("installed");
    const overview = await web.services.environments.overview(projectId);
    expect(overview.versions.map((v) => [v.version, v.parentVersion])).toEqual([
      [2, 1],
      [1, null],
    ]);
    expect(overview.diskBytes).toBeGreaterThanOrEqual(Number(v1Row.sizeBytes));
  });

  it("keeps the active version and the log when a command fails", async () => {
    const created = await web.services.environments.prepareWithCommand(projectId, "echo about to fail; exit 3");
    const row = await waitUntilBuilt(web, created.id);
    expect(row.status).toBe("failed");
    expect(row.error).toContain("exited with code 3");
    expect(row.imageId).toBeNull();
    expect((await web.db.environmentVersion.findFirstOrThrow({ where: { projectId, active: true } })).id).toBe(v2);
    expect(await web.services.environments.log(created.id)).toContain("about to fail");
    expect(dockerInspect("image", row.imageTag)).toBeNull();
    // a version seen failed has no container left on its parent's image (deleting that at once must work)
    expect(containersOf(created.id)).toEqual([]);
    await web.services.environments.remove(created.id);
  });

  it("rolls back, and refuses to delete the active version or one a study froze", async () => {
    await web.services.environments.activate(v1);
    expect((await web.db.environmentVersion.findFirstOrThrow({ where: { projectId, active: true } })).id).toBe(v1);
    await expect(web.services.environments.remove(v1)).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringContaining("active environment") as unknown,
    });
    await web.db.study.create({
      data: { projectId, title: "frozen", taskPrompt: "t", testCommand: "true", environmentVersionId: v2 },
    });
    await expect(web.services.environments.remove(v2)).rejects.toMatchObject({
      message: expect.stringContaining("frozen by 1 study") as unknown,
    });
    await web.db.study.deleteMany({ where: { projectId } });
    const tag = (await web.db.environmentVersion.findUniqueOrThrow({ where: { id: v2 } })).imageTag;
    await web.services.environments.remove(v2);
    expect(await web.db.environmentVersion.findUnique({ where: { id: v2 } })).toBeNull();
    await expect.poll(() => dockerInspect("image", tag), { timeout: 30_000 }).toBeNull();
  });

  it("explains a missing base image instead of trying to pull it", async () => {
    await web.services.projects.update({ id: projectId, settings: { baseImage: "invariant-missing:none" } });
    const created = await web.services.environments.prepare(projectId);
    const row = await waitUntilBuilt(web, created.id);
    expect(row.status).toBe("failed");
    expect(row.error).toContain("no image registry");
    expect(row.error).toContain("scripts/base-image.mjs");
    await web.services.projects.update({ id: projectId, settings: { baseImage: null } });
  });

  it("runs a prepare command with network by default; without it, a name-resolution failure says why and how to fix it", async () => {
    // a default route is there (checked in the kernel's table, no packet sent), in a project of network mode none
    const withNetwork = await web.services.environments.prepareWithCommand(
      projectId,
      "grep -qP '^\\S+\\t00000000\\t' /proc/net/route && echo has-a-default-route",
    );
    expect(await waitUntilBuilt(web, withNetwork.id)).toMatchObject({ status: "ready" });
    expect(await web.services.environments.log(withNetwork.id)).toContain("has-a-default-route");
    const offline = await web.services.environments.prepareWithCommand(
      projectId,
      "grep -qP '^\\S+\\t00000000\\t' /proc/net/route || { echo \"Temporary failure resolving 'deb.debian.org'\" >&2; exit 100; }",
      false,
    );
    const row = await waitUntilBuilt(web, offline.id);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(
      /^The command exited with code 100\. Its output shows host names could not be resolved \("Temporary failure resolving"\): it ran without network \(the project's network mode is none\)\. Run the command with network/,
    );
    await web.services.environments.remove(offline.id);
  });

  it("the base image exists for these tests", () => {
    expect(dockerInspect("image", BASE_IMAGE)).not.toBeNull();
  });
});
