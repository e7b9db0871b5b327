import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "../src/server/core/errors/app-error";
import { LABEL } from "../src/server/core/runtime/container-spec";
import { calendarProject, createDockerRuntime, tempDir } from "./support/study-harness";
import type { SessionWeb } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";

/**
 * Issue 26, points 1 and 7, on the real stack (SQLite, Redis, Docker, the calendar project with a prepared
 * environment): a project whose folder was deleted says so in its view, and every action that needs the
 * folder is refused with the same sentence (never a raw ENOENT); Relink validates the new path and brings it
 * back; removing a project with a running session and a study in preflight is refused with both listed, and
 * with stopRunning finishes the session, stops the study and leaves no container behind.
 */
const runtime = createDockerRuntime();
let stack: SessionStack;
let web: SessionWeb;
let projectId: string;
let projectDir: string;

beforeAll(async () => {
  projectDir = calendarProject();
  stack = await startSessionStack({ name: "project-folder", runtime, projectDir });
  ({ web, projectId } = stack);
}, 300_000);
afterAll(async () => stack?.close());

/** What a call threw: its AppError code, field and message. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; field?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!isAppError(error)) return { code: "not an AppError", message: (error as Error).message };
    return { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
  }
  return { code: "none", message: "it was not refused" };
}

async function projectContainers(id: string): Promise<string[]> {
  return (await runtime.listManagedContainers())
    .filter((container) => container.labels[LABEL.project] === id)
    .map((container) => container.id);
}

describe("a project whose folder was deleted", () => {
  it("says the folder is gone, refuses what needs it with that sentence, and relinks to the folder's new path", async () => {
    const services = web.core.services;
    expect((await services.projects.get(projectId)).folder).toEqual({ state: "present", problem: null });
    const moved = path.join(tempDir("project-folder-moved"), "calendar-moved");
    fs.renameSync(projectDir, moved);
    const sentence = `The folder ${projectDir} is gone. Relink the project to its new path, or remove it.`;

    const view = await services.projects.get(projectId);
    expect(view.folder).toEqual({ state: "missing", problem: sentence });
    expect((await services.projects.list()).find((p) => p.id === projectId)?.folder.state).toBe("missing");
    // the new-study form's blocker: Create is not offered
    expect((await services.studies.defaults(projectId)).blocker).toBe(sentence);

    const refused = {
      study: await refusal(
        services.studies.create(
          {
            projectId,
            title: "on a deleted folder",
            taskPrompt: "do it",
            testCommand: "node --test",
            configurations: [{ harness: "command", command: "true", repeats: 1 }],
          },
          "test",
        ),
      ),
      privateSession: await refusal(services.sessions.start({ projectId, kind: "shell", mode: "private" })),
      directSession: await refusal(services.sessions.start({ projectId, kind: "shell", mode: "direct" })),
      snapshot: await refusal(services.snapshots.create({ projectId })),
      testFileSearch: await refusal(services.studies.projectFiles({ projectId, query: "test" })),
      dependencyInstall: await refusal(services.dependencies.install(projectId)),
    };
    for (const [action, answer] of Object.entries(refused))
      expect({ action, ...answer }).toEqual({ action, code: "PRECONDITION_FAILED", message: sentence });
    expect(fs.existsSync(projectDir), "nothing recreated the folder").toBe(false);
    expect(await projectContainers(projectId)).toEqual([]);

    // relink: the new path must exist, be a directory, and be no other project's
    expect(await refusal(services.projects.relink({ id: projectId, hostPath: `${moved}-nowhere` }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "hostPath",
      message: `${moved}-nowhere does not exist. Check the spelling, or create the directory first.`,
    });
    const file = path.join(moved, "package.json");
    expect(await refusal(services.projects.relink({ id: projectId, hostPath: file }))).toMatchObject({
      code: "BAD_REQUEST",
      message: `${file} is a file, not a directory. Choose the project's top-level folder.`,
    });
    const other = await services.projects.add({ hostPath: tempDir("project-folder-other"), name: "other" });
    expect(await refusal(services.projects.relink({ id: projectId, hostPath: other.hostPath }))).toEqual({
      code: "CONFLICT",
      field: "hostPath",
      message: `${other.hostPath} is already the folder of project "other". Choose this project's own folder, or remove one of the two.`,
    });
    expect((await services.projects.get(projectId)).hostPath).toBe(projectDir);

    const relinked = await services.projects.relink({ id: projectId, hostPath: moved });
    expect(relinked).toMatchObject({ hostPath: moved, folder: { state: "present", problem: null } });
    const snapshot = await services.snapshots.create({ projectId });
    expect(snapshot.fileCount).toBeGreaterThan(0);
    projectDir = moved;
    await services.projects.remove({ id: other.id });
  });

  it("says so when the path is a file now", async () => {
    const away = `${projectDir}-away`;
    fs.renameSync(projectDir, away);
    fs.writeFileSync(projectDir, "not a folder\n");
    try {
      const view = await web.core.services.projects.get(projectId);
      expect(view.folder).toEqual({
        state: "not-a-folder",
        problem: `${projectDir} is no longer a folder. Relink the project to its folder's new path, or remove it.`,
      });
      expect(await refusal(web.core.services.snapshots.create({ projectId }))).toEqual({
        code: "PRECONDITION_FAILED",
        message: view.folder.problem,
      });
    } finally {
      fs.rmSync(projectDir);
      fs.renameSync(away, projectDir);
    }
  });
});

describe("removing a project with a running session and study", () => {
  it("is refused with both listed, and with stopRunning ends them and leaves no container", async () => {
    const services = web.core.services;
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    await web.waitForState(session.id, "running", 120_000);
    expect(await projectContainers(projectId)).toHaveLength(1);
    // no worker runs here: the study waits in its preflight, queued, until it is stopped
    const study = await services.studies.create(
      {
        projectId,
        title: "Waiting for a worker",
        taskPrompt: "do it",
        testCommand: "node --test",
        configurations: [{ harness: "command", command: "true", repeats: 1 }],
      },
      "test",
    );
    expect(study.state).toBe("preflight");

    const refused = await refusal(services.projects.remove({ id: projectId }));
    expect(refused).toEqual({
      code: "CONFLICT",
      field: "stopRunning",
      message: `This project has 2 things still running: shell session ${session.id} (running); study "Waiting for a worker" (preflight). Stop them and remove (the sessions are finished and their containers removed, the studies stopped, then the project goes), or finish them yourself first.`,
    });
    expect(await projectContainers(projectId), "a refused removal leaves the session alone").toHaveLength(1);
    expect((await services.sessions.get(session.id)).state).toBe("running");

    const removed = await services.projects.remove({ id: projectId, stopRunning: true, by: "test" });
    expect(removed.leftovers).toEqual([]);
    expect(await projectContainers(projectId)).toEqual([]);
    expect(await refusal(services.projects.get(projectId))).toMatchObject({ code: "NOT_FOUND" });
    expect(fs.existsSync(projectDir), "the project's own files are never touched").toBe(true);
  });
});
