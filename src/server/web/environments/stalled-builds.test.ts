import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWebSide, tempDir, type WebSide } from "../../../../test/support/environment-harness";

/** A version left `building` after a crash, with no worker report to finish it, is swept at web start. */
let web: WebSide;
let projectId: string;

beforeAll(async () => {
  web = await startWebSide({ redisBase: inject("redisUrl"), redisDb: 23 });
  projectId = (await web.services.projects.add({ hostPath: tempDir("stalled-project") })).id;
});
afterAll(async () => {
  await web.close();
});

describe("stalled environment builds", () => {
  it("marks a building version whose job is gone as failed, and leaves one whose job still waits", async () => {
    // no worker runs in this test: the queued build waits, as it would for a busy worker
    const waiting = await web.services.environments.prepare(projectId);
    const lost = await web.db.environmentVersion.create({
      data: { projectId, version: 99, imageTag: "invariant-env/x:v99", origin: "base", status: "building" },
    });
    expect(await web.services.environments.sweepStalled()).toEqual([lost.id]);
    const row = await web.db.environmentVersion.findUniqueOrThrow({ where: { id: lost.id } });
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/job is gone.*Prepare the environment again/);
    expect((await web.db.environmentVersion.findUniqueOrThrow({ where: { id: waiting.id } })).status).toBe("building");
  });
});
