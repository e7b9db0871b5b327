import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarProject, createDockerRuntime } from "./support/study-harness";
import type { SessionWeb } from "./support/session-harness";
import { startSessionStack, type SessionStack } from "./support/session-stack";

/**
 * Issue 12: a session gets a trial's limits, the disk budget included. A private copy that writes past
 * the project's budget is stopped by the dashboard, says why, and keeps its container for a resume.
 */
const MIB = 1024 * 1024;
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
