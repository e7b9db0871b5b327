import type { Mount } from "../runtime/container-spec";
import type { WorkspaceInfo } from "./workspace-store";

/** Where a container finds a workspace's files, and how: an overlay's layers, or nothing (a plain folder). */
export type WorkspaceLayers = WorkspaceInfo["overlay"];

/**
 * The mount that gives a container a workspace: a copy's tree as a bind, an overlay as Docker `local`
 * volume of type overlay (the daemon mounts it: no host privileges) with the snapshot's shared tree below
 * and the workspace's upper layer taking every write.
 */
export function workspaceMount(options: { path: string; overlay: WorkspaceLayers; containerPath: string }): Mount {
  const { overlay } = options;
  if (!overlay) return { hostPath: options.path, containerPath: options.containerPath, readOnly: false };
  return {
    hostPath: overlay.lower,
    containerPath: options.containerPath,
    readOnly: false,
    overlay: { upperDir: options.path, workDir: overlay.workDir, userXattr: true },
  };
}
