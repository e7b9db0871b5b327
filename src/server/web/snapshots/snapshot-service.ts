import type { ProjectLookup } from "../../../shared/project-schemas";
import { AppError } from "../../core/errors/app-error";
import type { SnapshotLimitsInput, SnapshotSummaryView, SnapshotView } from "../../../shared/snapshot-schemas";
import { toPathText } from "../../../lib/files/byte-path";
import type { GitRunner } from "../../core/snapshots/git-repo";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import { readManifest, type Manifest } from "../../core/snapshots/manifest";
import { DEFAULT_SNAPSHOT_LIMITS, type SnapshotLimits } from "../../core/snapshots/snapshot-limits";
import { createSnapshot } from "../../core/snapshots/snapshot-store";
import type { SnapshotQueries, SnapshotRecord } from "./snapshots.queries";

export interface SnapshotServiceDeps {
  dataDir: string;
  projects: ProjectLookup;
  snapshots: SnapshotQueries;
  /** Limits when a call names none (DEFAULT_SNAPSHOT_LIMITS otherwise). */
  limits?: SnapshotLimits;
  git?: GitRunner;
}

export function snapshotView(options: { manifest: Manifest; record: SnapshotRecord; reused: boolean }): SnapshotView {
  const { manifest } = options;
  return {
    id: manifest.id,
    projectId: manifest.projectId,
    fileCount: manifest.fileCount,
    bytes: manifest.bytes,
    commit: manifest.commit,
    skipped: manifest.skipped.map((item) => ({ ...toPathText(item.path), kind: item.kind })),
    excluded: {
      counts: { ...manifest.excluded.counts },
      secrets: manifest.excluded.secrets.map(toPathText),
      ignoredByGitignore: manifest.excluded.ignoredByGitignore,
    },
    createdAt: options.record.createdAt,
    reused: options.reused,
  };
}

function summaryView(record: SnapshotRecord): SnapshotSummaryView {
  let skippedCount = 0;
  try {
    const skipped: unknown = JSON.parse(record.skipped);
    skippedCount = Array.isArray(skipped) ? skipped.length : 0;
  } catch {
    // an unreadable list counts as empty
  }
  return {
    id: record.id,
    projectId: record.projectId,
    fileCount: record.fileCount,
    bytes: record.bytes,
    skippedCount,
    createdAt: record.createdAt,
  };
}

/** Snapshots of projects: freeze the files (snapshot-store), record the row (snapshots.queries). */
export function createSnapshotService(deps: SnapshotServiceDeps) {
  const withProjectLock = createKeyedLock();

  async function project(projectId: string) {
    const found = await deps.projects.findById(projectId);
    if (!found)
      throw new AppError({
        code: "NOT_FOUND",
        message: `No project with id ${projectId}. It may have been removed; reload the project list.`,
      });
    return found;
  }

  return {
    /** Freezes the project's files now; an unchanged project gives the same snapshot back (reused: true). */
    async create(input: { projectId: string; limits?: SnapshotLimitsInput }): Promise<SnapshotView> {
      const found = await project(input.projectId);
      const limits = { ...(deps.limits ?? DEFAULT_SNAPSHOT_LIMITS), ...input.limits };
      return withProjectLock(found.id, async () => {
        const result = await createSnapshot({
          projectRoot: found.hostPath,
          projectId: found.id,
          dataDir: deps.dataDir,
          limits,
          ...(deps.git ? { git: deps.git } : {}),
        });
        const { manifest } = result;
        const record = await deps.snapshots.upsert({
          id: manifest.id,
          projectId: found.id,
          fileCount: manifest.fileCount,
          bytes: manifest.bytes,
          skipped: JSON.stringify(manifest.skipped.map((item) => ({ ...toPathText(item.path), kind: item.kind }))),
        });
        return snapshotView({ manifest, record, reused: result.reused });
      });
    },

    async list(input: { projectId: string }): Promise<SnapshotSummaryView[]> {
      await project(input.projectId);
      return (await deps.snapshots.listForProject(input.projectId)).map(summaryView);
    },

    async get(input: { snapshotId: string }): Promise<SnapshotView> {
      const record = await deps.snapshots.findById(input.snapshotId);
      if (!record)
        throw new AppError({
          code: "NOT_FOUND",
          message: `No snapshot ${input.snapshotId}. Take a new snapshot of the project.`,
        });
      return snapshotView({
        manifest: await readManifest({ dataDir: deps.dataDir, snapshotId: record.id }),
        record,
        reused: false,
      });
    },
  };
}

export type SnapshotService = ReturnType<typeof createSnapshotService>;
