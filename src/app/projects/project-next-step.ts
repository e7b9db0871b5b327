import type { ProjectFolderState } from "../../shared/project-schemas";

/** What a project's environment versions say about its state (newest first, as `environments.overview` lists them). */
export interface VersionState {
  version: number;
  status: "building" | "ready" | "failed";
  active: boolean;
}

/** The one thing to do next on a project, chosen from its state. */
export type NextStepKind = "fix-folder" | "wait-for-build" | "new-study" | "prepare-again" | "prepare-environment";

export interface ProjectNextStep {
  kind: NextStepKind;
  /** The state in a few words: "environment v2 ready", "folder gone". */
  state: string;
  /** The next step in a few words: "start a study". */
  next: string;
  tone: "ok" | "warn" | "danger";
  /** The version the state is about (building, ready, failed); null without one. */
  version: number | null;
}

const FOLDER_STATE_TEXT: Record<Exclude<ProjectFolderState, "present">, string> = {
  missing: "folder gone",
  "not-a-folder": "not a folder",
  unreadable: "folder unreadable",
};

/**
 * A project's state and its next step: a folder that is gone (or unusable) first — nothing works until it is
 * relinked or the project removed; then a build under way; an active ready version (start a study); the newest
 * version failed (read its log, prepare again); no version at all (prepare one). The project list and the project
 * page both say it with these words.
 */
export function projectNextStep(options: {
  folderState: ProjectFolderState;
  versions: readonly VersionState[];
}): ProjectNextStep {
  const { folderState, versions } = options;
  if (folderState !== "present")
    return {
      kind: "fix-folder",
      state: FOLDER_STATE_TEXT[folderState],
      next: "relink or remove",
      tone: "danger",
      version: null,
    };
  const building = versions.find((v) => v.status === "building");
  if (building)
    return {
      kind: "wait-for-build",
      state: `environment v${building.version} building`,
      next: "wait for it to finish",
      tone: "warn",
      version: building.version,
    };
  const active = versions.find((v) => v.active);
  if (active?.status === "ready")
    return {
      kind: "new-study",
      state: `environment v${active.version} ready`,
      next: "start a study",
      tone: "ok",
      version: active.version,
    };
  const newest = versions[0];
  if (newest?.status === "failed")
    return {
      kind: "prepare-again",
      state: `environment v${newest.version} failed`,
      next: "read its log and prepare again",
      tone: "danger",
      version: newest.version,
    };
  return {
    kind: "prepare-environment",
    state: "no environment yet",
    next: "prepare it on the project page",
    tone: "warn",
    version: null,
  };
}
