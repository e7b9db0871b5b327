import { describe, expect, it } from "vitest";
import { createStudyBlockedReason, type CreateStudyReadiness } from "./create-study-readiness";

const ready: CreateStudyReadiness = {
  role: "admin",
  creating: false,
  projectId: "p1",
  defaults: "loaded",
  folderProblem: null,
  blocker: null,
  buildingVersion: null,
};

const noEnvironment = "calendar has no ready environment. Prepare one on the project page before starting a study.";
const gone = "The folder /x/calendar is gone. Relink the project to its new path, or remove it.";

describe("why Create study cannot be pressed", () => {
  it("can be pressed when everything is known and the project can run a study", () => {
    expect(createStudyBlockedReason(ready)).toBeNull();
    // fields that need attention are reported when it is pressed, not by disabling it
    expect(createStudyBlockedReason({ ...ready, projectId: "" })).toBeNull();
  });

  it("says it is creating the study while it is", () => {
    expect(createStudyBlockedReason({ ...ready, creating: true })).toBe(
      "Creating the study: freezing a snapshot of the project and capturing its test files…",
    );
  });

  it("says it is still checking access, or that a viewer cannot start studies", () => {
    expect(createStudyBlockedReason({ ...ready, role: null, defaults: "loading" })).toBe("Checking your access…");
    expect(createStudyBlockedReason({ ...ready, role: "viewer" })).toBe(
      "Only the admin of this invariant-web can start studies.",
    );
  });

  it("says the project's defaults are loading, or why they could not be read", () => {
    expect(createStudyBlockedReason({ ...ready, defaults: "loading" })).toBe(
      "Loading the project's defaults (environment, model, limits)…",
    );
    expect(createStudyBlockedReason({ ...ready, defaults: { error: "No project with id p1." } })).toBe(
      "Could not read the project's defaults: No project with id p1.",
    );
  });

  it("names the folder problem first, even while the defaults load", () => {
    expect(createStudyBlockedReason({ ...ready, folderProblem: gone, defaults: "loading" })).toBe(gone);
    expect(createStudyBlockedReason({ ...ready, folderProblem: gone, blocker: gone, buildingVersion: 2 })).toBe(gone);
  });

  it("waits for an environment being prepared, else says there is none", () => {
    expect(createStudyBlockedReason({ ...ready, blocker: noEnvironment, buildingVersion: 1 })).toBe(
      "Waiting for environment v1 to be ready: it is being prepared, and Create study turns on by itself when it is.",
    );
    expect(createStudyBlockedReason({ ...ready, blocker: noEnvironment })).toBe(noEnvironment);
    // a build of a later version while one is ready blocks nothing
    expect(createStudyBlockedReason({ ...ready, buildingVersion: 3 })).toBeNull();
  });
});
