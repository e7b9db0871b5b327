import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import type { SessionDeps, TrialOrigin } from "./session-deps";
import { startSession } from "./session-start";

/**
 * Continuing a trial that cannot be continued is refused before anything is created, with the reason: no
 * result image, a result image removed from Docker (the real engine answers), a deleted workspace (a real,
 * empty data dir). The happy path runs in e2e/sessions-continue.spec.ts.
 */
const PROJECT = { id: "p-continue", name: "calendar", defaultConfiguration: { model: "m", reasoningEffort: "medium" } };
const BASE_IMAGE = "invariant-base:bookworm";

function depsFor(origin: Partial<TrialOrigin>): SessionDeps {
  const trial: TrialOrigin = {
    trialId: "t-continue",
    projectId: PROJECT.id,
    workspaceId: "ws-000000000000000000000000",
    committedImage: BASE_IMAGE,
    threadId: null,
    codexHomePath: null,
    model: "m",
    reasoningEffort: "medium",
    ...origin,
  };
  // only what a refused start reaches; anything else would throw on use
  return {
    projects: { findById: () => Promise.resolve(PROJECT) },
    environments: { active: () => Promise.resolve(null) },
    trialOrigin: () => Promise.resolve(trial),
    runtime: createDockerRuntime(),
    dataDir: tempDir("session-start"),
  } as unknown as SessionDeps;
}

/** What a start that must be refused was refused with. */
async function refusal(deps: SessionDeps): Promise<{ code: unknown; message: string }> {
  const error = await startSession(deps, { projectId: PROJECT.id, fromTrialId: "t-continue", kind: "shell" }).then(
    () => new Error("it started"),
    (reason: unknown) => reason as Error & { code?: unknown },
  );
  return { code: (error as { code?: unknown }).code, message: error.message };
}

describe("continuing a trial", () => {
  it("is refused when the trial kept no result image", async () => {
    const { code, message } = await refusal(depsFor({ committedImage: null }));
    expect(code).toBe("PRECONDITION_FAILED");
    expect(message).toMatch(/^Trial t-continue has no result image to continue in/);
  });

  it("is refused when its result image was removed from Docker", async () => {
    const gone = `sha256:${"0".repeat(64)}`;
    const { code, message } = await refusal(depsFor({ committedImage: gone }));
    expect(code).toBe("PRECONDITION_FAILED");
    expect(message).toContain("result image 000000000000 is no longer in Docker");
  });

  it("is refused when its workspace was deleted", async () => {
    expect(await refusal(depsFor({}))).toEqual({
      code: "PRECONDITION_FAILED",
      message:
        "Trial t-continue's workspace ws-000000000000000000000000 was deleted, so there is nothing to continue from.",
    });
  });
});
