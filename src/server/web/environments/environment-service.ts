import fs from "node:fs/promises";
import { AppError } from "../../core/errors/app-error";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { removeEnvironmentImageJob } from "../../core/jobs/environment-jobs";
import type { EnvironmentVersionView } from "./environments.queries";
import { enqueueBuild, findProject, sweepStalledBuilds, type EnvironmentDeps } from "./environment-build-queue";
import { recordEnvironmentEvent } from "./environment-events";
import { dataDirPaths } from "../../core/storage/data-dir";
import { createDevcontainerService } from "./devcontainer-service";

export const DEFAULT_BASE_IMAGE = "invariant-base:bookworm";

export interface EnvironmentOverview {
  versions: EnvironmentVersionView[];
  /** Bytes the project's environments add on the engine: the first version's size plus each later version's growth over its parent. */
  diskBytes: number;
}

/**
 * Environment versions of a project (web side). Builds run on a worker; their results arrive as
 * events that `recordEvent` applies, so this process stays the only database writer.
 */
export function createEnvironmentService(deps: EnvironmentDeps) {
  async function version(versionId: string): Promise<EnvironmentVersionView> {
    const found = await deps.environments.findById(versionId);
    if (!found) throw new AppError({ code: "NOT_FOUND", message: `No environment version with id ${versionId}.` });
    return found;
  }

  return {
    async overview(projectId: string): Promise<EnvironmentOverview> {
      await findProject(deps, projectId);
      const versions = await deps.environments.list(projectId);
      return { versions, diskBytes: diskBytesOf(versions) };
    },

    /** Builds a version from the project's base image: base + the Codex CLI + a home directory. */
    async prepare(projectId: string): Promise<EnvironmentVersionView> {
      const p = await findProject(deps, projectId);
      return enqueueBuild(deps, {
        projectId,
        fromImage: p.baseImage ?? deps.defaultBaseImage,
        kind: "base",
        command: null,
        parentId: null,
      });
    },

    /**
     * Runs a command in a container of the active version; exit 0 makes the result the new active version.
     * With network by default (`withNetwork`): the command is the user's, not the agent's.
     */
    async prepareWithCommand(projectId: string, command: string, withNetwork = true): Promise<EnvironmentVersionView> {
      const active = await deps.environments.active(projectId);
      if (!active?.imageId) {
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: "This project has no ready environment yet. Prepare the environment first, then run commands in it.",
        });
      }
      return enqueueBuild(deps, {
        projectId,
        fromImage: active.imageTag,
        kind: "command",
        command,
        parentId: active.id,
        withNetwork,
      });
    },

    /** devcontainerStatus and prepareFromDevcontainer: a version from the project's devcontainer.json. */
    ...createDevcontainerService(deps),

    /** Rollback: make an older ready version the active one. */
    async activate(versionId: string): Promise<EnvironmentVersionView> {
      const v = await version(versionId);
      if (v.status !== "ready")
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: `Version ${v.version} is ${v.status}; only a ready version can be made active.`,
        });
      return deps.environments.activate(versionId);
    },

    /** Deletes a version nothing uses, and its image on the worker's engine. */
    async remove(versionId: string): Promise<{ id: string }> {
      const v = await version(versionId);
      if (v.active)
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: `Version ${v.version} is the active environment. Make another version active first.`,
        });
      if (v.status === "building")
        throw new AppError({ code: "PRECONDITION_FAILED", message: `Version ${v.version} is still being prepared.` });
      if (v.usedByStudies > 0) {
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: `Version ${v.version} is frozen by ${v.usedByStudies} ${v.usedByStudies === 1 ? "study" : "studies"}; their results must stay reproducible, so it cannot be deleted.`,
        });
      }
      await deps.environments.remove(versionId);
      await removeUnusedDependencies(deps, v);
      if (v.status === "ready")
        await deps.queue.enqueue({ job: removeEnvironmentImageJob, data: { reference: v.imageTag }, keep: 100 });
      return { id: versionId };
    },

    async log(versionId: string): Promise<string> {
      const v = await version(versionId);
      if (!v.logPath) return "";
      return fs.readFile(dataDirPaths(deps.dataDir).absolute(v.logPath), "utf8").catch(() => "");
    },

    /** Versions left `building` with no worker to finish them become `failed` (see environment-build-queue.ts). */
    sweepStalled: () => sweepStalledBuilds(deps),

    /** Applies a worker's environment event (called by the recorder before it acknowledges the event). */
    recordEvent: (event: InvariantEvent, options: { firstTime: boolean }) =>
      recordEnvironmentEvent({ dataDir: deps.dataDir, environments: deps.environments, event, ...options }),
  };
}

/** A deleted dependency version's installed folder, unless a version built on it still carries it. */
async function removeUnusedDependencies(deps: EnvironmentDeps, removed: EnvironmentVersionView): Promise<void> {
  const dir = removed.origin === "dependencies" ? removed.dependencies?.dir : undefined;
  if (!dir) return;
  const others = await deps.environments.list(removed.projectId);
  if (others.some((other) => other.dependencies?.dir === dir)) return;
  await fs.rm(dataDirPaths(deps.dataDir).absolute(dir), { recursive: true, force: true });
}

/** Bytes the versions add on the engine: the first version's size plus each later version's growth over its parent. */
function diskBytesOf(versions: EnvironmentVersionView[]): number {
  const byId = new Map(versions.map((v) => [v.id, v]));
  let diskBytes = 0;
  for (const v of versions) {
    if (v.status !== "ready" || v.sizeBytes === null) continue;
    const parent = v.parentId ? byId.get(v.parentId) : undefined;
    diskBytes += parent?.sizeBytes != null ? Math.max(0, v.sizeBytes - parent.sizeBytes) : v.sizeBytes;
  }
  return diskBytes;
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
