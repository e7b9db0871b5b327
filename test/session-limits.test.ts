import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { calendarProject, createDockerRuntime, tempDir } from "./support/study-harness";
import type { SessionWeb } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";

/**
 * Issue 12: a session gets a trial's limits, the disk budget included. A private copy that writes past
 * the project's budget is stopped by the dashboard, says why, and keeps its container for a resume. A
 * session whose container cannot start says why and leaves nothing behind.
 */
const MIB = 1024 * 1024;
const UNSTARTABLE = "invariant-test/file-at-run:1";
const runtime = createDockerRuntime();
let stack: SessionStack;
let web: SessionWeb;
let projectId: string;

beforeAll(async () => {
  stack = await startSessionStack({ name: "session-limits", runtime, projectDir: calendarProject() });
  ({ web, projectId } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe("a session's disk budget", () => {
  it("stops a private copy that writes past it, says how much it wrote, and keeps it to resume", async () => {
    const services = web.core.services;
    await services.projects.update({ id: projectId, settings: { diskBudgetBytes: 64 * MIB } });
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    const terminal = await web.watch(session.id);
    // 20 × 8 MiB into the workspace, slowly enough for the upkeep's checks to stop it well before the end
    await web.type(
      session.id,
      "i=0; while [ $i -lt 20 ]; do dd if=/dev/zero of=fill-$i.bin bs=1M count=8 2>/dev/null; i=$((i+1)); sleep 1; done; echo filled",
    );
    const stopped = await web.waitForState(session.id, "exited", 60_000);
    expect(stopped.reason).toMatch(
      /^Stopped: it wrote \d+(\.\d)? MiB to disk, past the disk budget of 64\.0 MiB \(the project's "Disk budget per trial" setting/,
    );
    expect(terminal.text()).not.toMatch(/^filled$/m);
    const resumed = await services.sessions.resume(session.id);
    expect(resumed.state).toBe("running");
    await services.sessions.finish(session.id);
  }, 120_000);
});

describe("a session whose container cannot start", () => {
  it("is answered while it starts, then ends finished with the engine's reason, leaving no container or files", async () => {
    const db = web.core.db;
    // an environment image with a file at /run, where the session's control folder is mounted: the engine
    // creates the container (and we attach to it), and refuses to start it
    const emptyRoot = tempDir("file-at-run-image");
    fs.writeFileSync(path.join(emptyRoot, "run"), "A file where /run should be a directory.\n");
    const imported = spawnSync("sh", ["-c", `tar -C ${emptyRoot} -c . | docker import - ${UNSTARTABLE}`], {
      encoding: "utf8",
    });
    expect(imported.status, imported.stderr).toBe(0);
    const active = await db.environmentVersion.findFirstOrThrow({ where: { projectId, active: true } });
    await db.environmentVersion.update({ where: { id: active.id }, data: { active: false } });
    const broken = await db.environmentVersion.create({
      data: { projectId, version: 99, imageTag: UNSTARTABLE, origin: "base", status: "ready", active: true },
    });
    try {
      const session = await web.core.services.sessions.start({ projectId, kind: "shell", mode: "private" });
      expect(session.state).toBe("starting");
      const ended = await web.waitForState(session.id, "finished");
      expect(ended.reason).toMatch(/^Could not start: .*not a directory/);
      expect(
        execFileSync("docker", ["ps", "-aq", "--filter", `label=invariant.session=${session.id}`], {
          encoding: "utf8",
        }),
      ).toBe("");
      expect(fs.existsSync(dataDirPaths(stack.dataDir).session(session.id).control)).toBe(false);
      // its page heard of it: the last change it was told of is the finished session
      expect(web.changes.filter((change) => change.id === session.id).at(-1)?.state).toBe("finished");
    } finally {
      await db.environmentVersion.delete({ where: { id: broken.id } });
      await db.environmentVersion.update({ where: { id: active.id }, data: { active: true } });
      spawnSync("docker", ["rmi", "-f", UNSTARTABLE]);
    }
  }, 120_000);
});
