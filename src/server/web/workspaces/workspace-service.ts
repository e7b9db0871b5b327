import { AppError } from "../../core/errors/app-error";
import { diffView } from "../../core/diffs/diff-view";
import { diffWorkspace, type DiffCaps } from "../../core/diffs/workspace-diff";
import { readManifest } from "../../core/snapshots/manifest";
import type { SnapshotQueries } from "../snapshots/snapshots.queries";
import type { WorkspaceDiffView, WorkspaceView } from "../../../shared/snapshot-schemas";
import {
  createWorkspace,
  readWorkspace,
  removeWorkspace,
  type WorkspaceInfo,
} from "../../core/workspaces/workspace-store";

export interface WorkspaceServiceDeps {
  dataDir: string;
  snapshots: Pick<SnapshotQueries, "findById">;
  diffCaps?: DiffCaps;
}

function view(info: WorkspaceInfo): WorkspaceView {
  return {
    id: info.id,
    projectId: info.projectId,
    snapshotId: info.snapshotId,
    path: info.path,
    createdAt: info.createdAt,
  };
}

/** Private writable copies of snapshots, and their diffs against the snapshot. */
export function createWorkspaceService(deps: WorkspaceServiceDeps) {
  return {
    async create(input: { snapshotId: string }): Promise<WorkspaceView> {
      if (!(await deps.snapshots.findById(input.snapshotId))) {
        throw new AppError({
          code: "NOT_FOUND",
          message: `No snapshot ${input.snapshotId}. Take a snapshot of the project first.`,
        });
      }
      return view(await createWorkspace({ dataDir: deps.dataDir, snapshotId: input.snapshotId }));
    },

    async get(input: { workspaceId: string }): Promise<WorkspaceView> {
      return view(await readWorkspace({ dataDir: deps.dataDir, workspaceId: input.workspaceId }));
    },

    /** Deletes the copy; the snapshot stays. */
    async remove(input: { workspaceId: string }): Promise<{ workspaceId: string; removed: boolean }> {
      const { removed } = await removeWorkspace({ dataDir: deps.dataDir, workspaceId: input.workspaceId });
      return { workspaceId: input.workspaceId, removed };
    },

    async diff(input: { workspaceId: string }): Promise<WorkspaceDiffView> {
      const workspace = await readWorkspace({ dataDir: deps.dataDir, workspaceId: input.workspaceId });
      const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: workspace.snapshotId });
      const diff = await diffWorkspace({
        dataDir: deps.dataDir,
        manifest,
        workspaceRoot: workspace.path,
        overlayLower: workspace.overlay?.lower ?? null,
        ...(deps.diffCaps ? { caps: deps.diffCaps } : {}),
      });
      return diffView({ workspaceId: workspace.id, diff });
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
