import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "../src/server/core/errors/app-error";
import { LABEL } from "../src/server/core/runtime/container-spec";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import type { HealthReport } from "../src/shared/system-health";
import { BIN, cleanEnv, launch, ROOT, type Launched } from "./support/launch";
import type { SessionWeb } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";
import { calendarProject, createDockerRuntime, tempDir } from "./support/study-harness";

/**
 * Issue 24's drills of errors a user can meet, replayed on the real product: a missing Docker socket
 * (point 3), snapshots of a tree that changes or is gone (4), a direct session on a missing folder (5),
 * removal after sessions (9), and input gaps (10). Each asserts what the user reads.
 */
const NO_HANG_MS = 120_000; // a call that waits forever is killed here and fails the test (it hung > 120 s in the drill)

let app: Launched | null = null;
let churn: ReturnType<typeof spawn> | null = null;
afterAll(async () => {
  churn?.kill("SIGKILL");
  await app?.stop("SIGTERM");
});

async function call(procedure: string, input: unknown, kind: "query" | "mutation" = "mutation") {
  const query = kind === "query" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
  const response = await fetch(`${app?.base}/api/trpc/${procedure}${query}`, {
    method: kind === "query" ? "GET" : "POST",
    headers: { authorization: `Bearer ${app?.token}`, "content-type": "application/json" },
    ...(kind === "mutation" ? { body: JSON.stringify(input) } : {}),
    signal: AbortSignal.timeout(NO_HANG_MS),
  });
  const text = await response.text();
  const json = JSON.parse(text) as {
    result?: { data: unknown };
    error?: { message: string; data?: { code?: string } };
  };
  return { status: response.status, text, data: json.result?.data, message: json.error?.message ?? "" };
}

describe("with the Docker socket missing (point 3)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = tempDir("drill-no-docker");
    app = await launch({ dataDir, env: { DOCKER_HOST: "unix:///nonexistent-invariant-drill.sock" } });
  }, 120_000);

  it("health says Docker is not reachable, and environment prepare fails at once saying so", async () => {
    const health = await fetch(`${app?.base}/api/health`, { signal: AbortSignal.timeout(NO_HANG_MS) });
    const report = (await health.json()) as HealthReport;
    expect(health.status).toBe(503);
    expect(report.docker).toMatchObject({ reachable: false });
    expect(report.problems.join(" ")).toMatch(/Docker is not reachable from the dashboard .*Start the Docker engine/);

    const added = await call("projects.add", { hostPath: tempDir("drill-no-docker-project"), name: "no-docker" });
    expect(added.status, added.text).toBe(200);
    const prepared = spawnSync(
      process.execPath,
      [BIN, "environment", "prepare", "--project", "no-docker", "--data-dir", dataDir],
      {
        cwd: ROOT,
        env: cleanEnv(),
        encoding: "utf8",
        timeout: NO_HANG_MS,
      },
    );
    expect(prepared.signal, "environment prepare did not return").toBeNull();
    expect(prepared.status, prepared.stderr).toBe(1);
    expect(prepared.stderr).toMatch(
      /failed: Docker is not reachable \(connect ENOENT \/nonexistent-invariant-drill\.sock\)\. Start the Docker engine/,
    );
    expect(prepared.stderr).not.toMatch(/Prepare the environment again/);
  });

  it("refuses /proc, /sys, /dev and over-long paths as projects, echoing no long path back (point 10)", async () => {
    for (const hostPath of ["/proc", "/sys/kernel", "/dev"]) {
      const refused = await call("projects.add", { hostPath });
      expect(refused.status, hostPath).toBe(400);
      expect(refused.message, hostPath).toMatch(/the kernel's view of the system .*cannot be a project/);
    }
    const long = `/tmp/${"x".repeat(1024 * 1024)}`;
    const refused = await call("projects.add", { hostPath: long });
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/A project's path is at most 4096 characters/);
    expect(refused.text.length).toBeLessThan(4096);
  });

  it("refuses a study with a field it does not have, as the CLI's study file does (point 10)", async () => {
    const refused = await call("studies.create", {
      projectId: "any",
      title: "t",
      taskPrompt: "do it",
      testCommand: "npm test",
      concurency: 2,
      configurations: [{ harness: "command", command: "true", repeats: 1, model: "" }],
    });
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^Unknown field "concurency"\. The fields here are: projectId, title/);
  });

  it("answers an oversized GET with 431 and a body that says what to do (point 10)", async () => {
    const response = await fetch(`${app?.base}/api/trpc/projects.list?input=${"x".repeat(64 * 1024)}`, {
      headers: { authorization: `Bearer ${app?.token}` },
    });
    expect(response.status).toBe(431);
    expect(await response.text()).toMatch(
      /^The request's headers .* are over this server's limit of 16 KiB\. Shorten the URL/,
    );
  });

  it("snapshots a tree that changes meanwhile with a CONFLICT, and a deleted folder with PRECONDITION_FAILED (point 4)", async () => {
    const dir = tempDir("drill-churn");
    const added = await call("projects.add", { hostPath: dir, name: "churn" });
    const projectId = (added.data as { id: string }).id;
    // files appear and vanish all the time, as under a build that writes and cleans up
    churn = spawn("sh", ["-c", 'while :; do for i in $(seq 1 300); do : > "f$i"; done; rm -f f*; done'], { cwd: dir });
    const statuses: number[] = [];
    let conflict = "";
    for (let attempt = 0; attempt < 40 && !conflict; attempt++) {
      const taken = await call("snapshots.create", { projectId });
      statuses.push(taken.status);
      if (taken.status === 409) conflict = taken.message;
    }
    churn.kill("SIGKILL");
    expect(
      statuses.filter((status) => status !== 200 && status !== 409),
      statuses.join(","),
    ).toEqual([]);
    expect(conflict).toMatch(/^Files changed while the snapshot was taken; try again \(.*\)\. Nothing was saved/);
    expect(conflict).not.toMatch(/ENOENT: no such file/);

    fs.rmSync(dir, { recursive: true, force: true });
    const gone = await call("snapshots.create", { projectId });
    expect(gone.status).toBe(412);
    expect(gone.message).toBe(`The folder ${dir} is gone. Relink the project to its new path, or remove it.`);
  });
});

describe("a project folder that is gone, and removal after sessions (points 4, 5, 9)", () => {
  const runtime = createDockerRuntime();
  let stack: SessionStack;
  let web: SessionWeb;
  let projectId: string;
  let projectDir: string;
  beforeAll(async () => {
    projectDir = calendarProject();
    stack = await startSessionStack({ name: "drill-folder", runtime, projectDir });
    ({ web, projectId } = stack);
  }, 300_000);
  afterAll(async () => stack?.close());

  /** What a call threw: its AppError code and message. */
  async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
    try {
      await promise;
    } catch (error) {
      return { code: isAppError(error) ? error.code : "not an AppError", message: (error as Error).message };
    }
    return { code: "none", message: "it was not refused" };
  }

  it("refuses a direct session and a study on a missing folder before anything is created, and Docker makes no folder", async () => {
    const away = `${projectDir}-away`;
    fs.renameSync(projectDir, away);
    try {
      const session = await refusal(web.core.services.sessions.start({ projectId, kind: "shell", mode: "direct" }));
      expect(session.code, session.message).toBe("PRECONDITION_FAILED");
      expect(session.message).toMatch(/^The folder .* is gone\. Relink the project to its new path, or remove it\.$/);
      expect(fs.existsSync(projectDir), "Docker recreated the folder").toBe(false);
      const containers = (await runtime.listManagedContainers()).filter(
        (container) => container.labels[LABEL.project] === projectId,
      );
      expect(containers).toEqual([]);

      const study = await refusal(
        web.core.services.studies.create(
          {
            projectId,
            title: "on a missing folder",
            taskPrompt: "do it",
            testCommand: "true",
            configurations: [{ harness: "command", command: "true", repeats: 1 }],
          },
          "drill",
        ),
      );
      expect(study.code, study.message).toBe("PRECONDITION_FAILED");
      expect(study.message).toMatch(/^The folder .* is gone\. Relink the project to its new path, or remove it\.$/);
    } finally {
      fs.renameSync(away, projectDir);
    }
  });

  it("removes a project's session folders and agent homes with it, and reports nothing left", async () => {
    const services = web.core.services;
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "direct" });
    await web.waitForState(session.id, "running", 120_000);
    const paths = dataDirPaths(stack.dataDir);
    await services.sessions.finish(session.id);
    await web.waitForState(session.id, "finished", 120_000);
    // what a session leaves behind: its folder (the saved screen) and the project's agent home of that mode
    expect(fs.existsSync(paths.session(session.id).screen), "the saved screen").toBe(true);
    const home = paths.sessionCodexHome(projectId, "direct");
    expect(fs.existsSync(home)).toBe(true);
    // the Codex home of an older version (one per project, every mode), still on disk after an upgrade
    const oldHome = path.join(stack.dataDir, "sessions", "codex-homes", projectId);
    fs.mkdirSync(oldHome, { recursive: true });

    const removed = await services.projects.remove({ id: projectId });
    expect(removed.leftovers).toEqual([]);
    expect(fs.existsSync(paths.session(session.id).dir)).toBe(false);
    expect(fs.existsSync(home)).toBe(false);
    expect(fs.existsSync(oldHome)).toBe(false);
    expect(fs.existsSync(projectDir), "the project's own files are never touched").toBe(true);
  });
});
