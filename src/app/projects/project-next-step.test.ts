import { describe, expect, it } from "vitest";
import { projectNextStep, type VersionState } from "./project-next-step";

const ready = (version: number, active = true): VersionState => ({ version, status: "ready", active });

describe("a project's next step", () => {
  it("is to prepare an environment when there is none", () => {
    expect(projectNextStep({ folderState: "present", versions: [] })).toEqual({
      kind: "prepare-environment",
      state: "no environment yet",
      next: "prepare it on the project page",
      tone: "warn",
      version: null,
    });
  });

  it("is a new study once the active version is ready", () => {
    expect(projectNextStep({ folderState: "present", versions: [ready(2), ready(1, false)] })).toMatchObject({
      kind: "new-study",
      state: "environment v2 ready",
      next: "start a study",
      version: 2,
    });
  });

  it("is to wait while a version builds, even with an older one ready", () => {
    const versions: VersionState[] = [{ version: 3, status: "building", active: false }, ready(2)];
    expect(projectNextStep({ folderState: "present", versions })).toMatchObject({
      kind: "wait-for-build",
      state: "environment v3 building",
      version: 3,
    });
  });

  it("is to prepare again when the newest version failed and none is active and ready", () => {
    expect(
      projectNextStep({ folderState: "present", versions: [{ version: 1, status: "failed", active: false }] }),
    ).toMatchObject({ kind: "prepare-again", state: "environment v1 failed", tone: "danger", version: 1 });
  });

  it("keeps a ready active version the next step when a later rebuild failed", () => {
    const versions: VersionState[] = [{ version: 2, status: "failed", active: false }, ready(1)];
    expect(projectNextStep({ folderState: "present", versions })).toMatchObject({ kind: "new-study", version: 1 });
  });

  it("is to fix the folder first when it is gone, whatever the environment", () => {
    for (const [folderState, state] of [
      ["missing", "folder gone"],
      ["not-a-folder", "not a folder"],
      ["unreadable", "folder unreadable"],
    ] as const)
      expect(projectNextStep({ folderState, versions: [ready(1)] })).toEqual({
        kind: "fix-folder",
        state,
        next: "relink or remove",
        tone: "danger",
        version: null,
      });
  });
});
