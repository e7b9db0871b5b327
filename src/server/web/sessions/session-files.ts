import { AppError, isAppError } from "../../core/errors/app-error";
import type { ProjectView } from "../../../shared/project-schemas";
import { dataDirPaths } from "../../core/storage/data-dir";
import { chooseWorkspaceKind } from "../../core/workspaces/workspace-kind";
import type { WorkspaceLayers } from "../../core/workspaces/workspace-mount";
import { copyWorkspace, createWorkspace } from "../../core/workspaces/workspace-store";
import type { SessionDeps, TrialOrigin } from "./session-deps";

/** What a session's /workspace is, and what else its container mounts for it. */
export interface SessionFiles {
  mode: "direct" | "private";
  /** What /workspace is: the project directory, or a workspace's files (a copy-on-write one's upper layer). */
  filesPath: string;
  /** A copy-on-write workspace's other layers. */
  filesOverlay: WorkspaceLayers;
  workspaceId: string | null;
  /** Read-only mounts besides (the snapshot's git objects a workspace's .git borrows). */
  extraMounts: { hostPath: string; containerPath: string }[];
}

/** Where the session's files come from: the project itself, a fresh snapshot, or a copy of a trial's workspace. */
export async function filesOf(options: {
  deps: SessionDeps;
  project: ProjectView;
  mode: "direct" | "private";
  origin: TrialOrigin | null;
  image: string;
}): Promise<SessionFiles> {
  const { deps, project, origin } = options;
  if (options.mode === "direct" && !origin)
    return { mode: "direct", filesPath: project.hostPath, filesOverlay: null, workspaceId: null, extraMounts: [] };
  let workspace;
  if (origin) {
    if (!origin.workspaceId)
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: `Trial ${origin.trialId} kept no workspace to continue from (it may have been deleted).`,
      });
    workspace = await copyWorkspace({ dataDir: deps.dataDir, workspaceId: origin.workspaceId }).catch((error) => {
      if (isAppError(error) && error.code === "NOT_FOUND")
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: `Trial ${origin.trialId}'s workspace ${origin.workspaceId} was deleted, so there is nothing to continue from.`,
          cause: error,
        });
      throw error;
    });
  } else {
    const snapshot = await deps.snapshots.create({ projectId: project.id });
    const kind = await chooseWorkspaceKind({ ...deps, setting: deps.workspaceKind, image: options.image });
    workspace = await createWorkspace({ dataDir: deps.dataDir, snapshotId: snapshot.id, kind });
  }
  const gitObjects = dataDirPaths(deps.dataDir).snapshot(workspace.snapshotId).gitObjects;
  return {
    mode: "private",
    filesPath: workspace.path,
    filesOverlay: workspace.overlay,
    workspaceId: workspace.id,
    extraMounts: [{ hostPath: gitObjects, containerPath: gitObjects }],
  };
}
