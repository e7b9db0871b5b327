import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarProject, createDockerRuntime } from "./support/study-harness";
import type { SessionWeb } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";

/**
 * "Save installed tools" shows what it would keep and keeps nothing when nothing was installed (issue 26,
 * point 8), on the real stack: a shell session's container on the real Docker engine, its diff against the
 * image (outside /workspace and /tmp) and the size of its writable layer; SQLite and Redis.
 */
const runtime = createDockerRuntime();
let stack: SessionStack;
let web: SessionWeb;
let projectId: string;

beforeAll(async () => {
  stack = await startSessionStack({ name: "session-tools", runtime, projectDir: calendarProject() });
  ({ web, projectId } = stack);
  await web.core.services.projects.update({ id: projectId, settings: { runAsRoot: true } });
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe("saving a session's installed tools", () => {
  it("says nothing was installed and makes no version; after an install, counts the paths, folders and size", async () => {
    const services = web.core.services;
    const versions = async () => (await services.environments.overview(projectId)).versions.map((v) => v.id);
    const before = await versions();
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    const terminal = await web.watch(session.id);
    // the project files and scratch space are not tools
    await web.type(session.id, "touch /workspace/notes.txt /tmp/scratch && echo scratch-done");
    await terminal.waitFor(/^scratch-done$/m);

    const untouched = await services.sessions.installedToolsChanges(session.id);
    expect(untouched).toMatchObject({ added: 0, changed: 0, deleted: 0, topFolders: [] });
    await expect(services.sessions.saveInstalledTools(session.id)).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringMatching(/^Nothing was installed in this session/) as unknown,
    });
    expect(await versions()).toEqual(before);

    await web.type(
      session.id,
      "mkdir -p /usr/local/lib/mytool && head -c 300000 /dev/urandom > /usr/local/lib/mytool/data && printf '#!/bin/sh\\n' > /usr/local/bin/mytool && rm /etc/issue && echo install-done",
    );
    await terminal.waitFor(/^install-done$/m);
    const installed = await services.sessions.installedToolsChanges(session.id);
    expect(installed.added).toBeGreaterThanOrEqual(3); // the folder, its file, the script
    expect(installed.deleted).toBe(1);
    expect(installed.topFolders[0]).toEqual({ folder: "/usr/local", paths: 2 });
    expect(installed.topFolders).toContainEqual({ folder: "/etc", paths: 1 });
    expect(installed.sizeBytes).toBeGreaterThan(300_000);

    const version = await services.sessions.saveInstalledTools(session.id);
    expect(version).toMatchObject({ origin: "session", status: "ready", active: true });
    expect(await versions()).toHaveLength(before.length + 1);
    await services.sessions.finish(session.id);
    await expect(services.sessions.installedToolsChanges(session.id)).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
    });
  }, 180_000);
});
