import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dockerInspect, startWebSide, tempDir, waitUntilBuilt, type WebSide } from "./support/environment-harness";
import { BIN, cleanEnv, ROOT } from "./support/launch";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { LABEL } from "../src/server/core/runtime/container-spec";

let web: WebSide;
const workers: ChildProcess[] = [];
const runtime = createDockerRuntime();

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [BIN, "worker", "--redis-url", web.redisUrl, "--data-dir", web.dataDir], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  workers.push(child);
  return child;
}

/** The container wardens a worker started (assets/container-warden.mjs, its direct children). */
function wardensOf(workerPid: number): number[] {
  const listed = spawnSync("ps", ["-o", "pid=,args=", "--ppid", String(workerPid)], { encoding: "utf8" }).stdout;
  return listed
    .split("\n")
    .filter((line) => line.includes("container-warden"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

async function containersOf(versionId: string) {
  return (await runtime.listManagedContainers()).filter((c) => c.labels[LABEL.environment] === versionId);
}

beforeAll(async () => {
  web = await startWebSide({ redisBase: inject("redisUrl"), redisDb: 21 });
});
afterAll(async () => {
  for (const child of workers) if (child.exitCode === null) child.kill("SIGKILL");
  await web.close();
});

describe("reconciler", () => {
  it("after a worker is killed mid-build, the next worker removes its container and the build is marked interrupted", async () => {
    const projectId = (await web.services.projects.add({ hostPath: tempDir("reconcile") })).id;
    // a ready version 1, built by a first worker
    const first = startWorkerProcess();
    const v1 = await web.services.environments.prepare(projectId);
    const built = await waitUntilBuilt(web, v1.id);
    expect(built.status, built.error ?? "").toBe("ready");
    // a long command on version 1, then the worker dies with SIGKILL
    const v2 = await web.services.environments.prepareWithCommand(projectId, "echo started; sleep 600");
    await expect.poll(async () => (await containersOf(v2.id)).length, { timeout: 60_000 }).toBe(1);
    const [orphan] = await containersOf(v2.id);
    // the worker dies with its container warden (a host crash; alone, the warden removes the container at
    // once, test/owner-death.test.ts): only the reconciler of the next worker can clean up
    for (const pid of wardensOf(first.pid ?? 0)) process.kill(pid, "SIGKILL");
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    expect(dockerInspect("container", orphan?.id ?? "")).not.toBeNull();
    // a new worker starts: nothing of ours is left running, and the build is reported interrupted
    startWorkerProcess();
    await expect.poll(async () => (await containersOf(v2.id)).length, { timeout: 60_000 }).toBe(0);
    const row = await waitUntilBuilt(web, v2.id, 60_000);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/^Interrupted: its worker \(pid \d+ on this host\) is gone/);
    expect((await web.db.environmentVersion.findUniqueOrThrow({ where: { id: v1.id } })).active).toBe(true);
    const tag = (await web.db.environmentVersion.findUniqueOrThrow({ where: { id: v1.id } })).imageTag;
    spawnSync("docker", ["rmi", "-f", tag], { stdio: "ignore" });
  });
});
