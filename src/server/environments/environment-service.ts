import fs from "node:fs/promises";
import path from "node:path";
import type { JobQueue } from "../jobs/job-queue";
import { AppError } from "../errors/app-error";
import type { InvariantEvent } from "../../shared/event-catalog";
import { prepareEnvironmentJob, removeEnvironmentImageJob, type PrepareEnvironmentJob } from "../jobs/environment-jobs";
import type { ProjectQueries } from "../projects/projects.queries";
import type { EnvironmentQueries, EnvironmentVersionView } from "./environments.queries";

export const DEFAULT_BASE_IMAGE = "invariant-base:bookworm";
export const DEFAULT_PREPARE_TIMEOUT_MS = 30 * 60 * 1000;

export interface EnvironmentServiceDeps {
  environments: EnvironmentQueries;
  projects: ProjectQueries;
  queue: JobQueue;
  dataDir: string;
  /** The global default base image (INVARIANT_BASE_IMAGE); a project's own setting wins. */
  defaultBaseImage: string;
  prepareTimeoutMs?: number;
}

export interface EnvironmentOverview {
  versions: EnvironmentVersionView[];
  /** Bytes the project's environments add on the engine: the first version's size plus each later version's growth over its parent. */
  diskBytes: number;
}

/** Docker repository for a project's environment images (lowercase, registry-free). */
export function imageRepository(projectId: string): string {
  return `invariant-env/${projectId.toLowerCase()}`;
}

/**
 * Environment versions of a project (web side). Builds run on a worker; their results arrive as
 * events that `recordEvent` applies, so this process stays the only database writer.
 */
export function createEnvironmentService(deps: EnvironmentServiceDeps) {
  async function project(projectId: string) {
    const found = await deps.projects.findById(projectId);
    if (!found) throw new AppError({ code: "NOT_FOUND", message: `No project with id ${projectId}.` });
    return found;
  }

  async function version(versionId: string): Promise<EnvironmentVersionView> {
    const found = await deps.environments.findById(versionId);
    if (!found) throw new AppError({ code: "NOT_FOUND", message: `No environment version with id ${versionId}.` });
    return found;
  }

  async function enqueue(input: {
    projectId: string;
    fromImage: string;
    kind: "base" | "command";
    command: string | null;
    parentId: string | null;
  }) {
    const p = await project(input.projectId);
    const building = await deps.environments.building(p.id);
    if (building)
      throw new AppError({
        code: "CONFLICT",
        message: `Version ${building.version} of ${p.name} is still being prepared; wait for it to finish.`,
      });
    const created = await deps.environments.createBuilding({
      projectId: p.id,
      parentId: input.parentId,
      origin: input.kind,
      command: input.command,
      imageRepository: imageRepository(p.id),
    });
    const [repository = "", tag = ""] = created.imageTag.split(":");
    const job: PrepareEnvironmentJob = {
      projectId: p.id,
      versionId: created.id,
      kind: input.kind,
      fromImage: input.fromImage,
      command: input.command,
      repository,
      tag,
      network: p.networkMode,
      limits: { cpus: p.cpus, memoryBytes: p.memoryBytes, swapBytes: p.swapBytes, pids: p.pids },
      timeoutMs: deps.prepareTimeoutMs ?? DEFAULT_PREPARE_TIMEOUT_MS,
    };
    try {
      await deps.queue.enqueue({
        job: prepareEnvironmentJob,
        data: job,
        jobId: `environment-${created.id}`,
        keep: 100,
      });
    } catch (error) {
      await deps.environments.remove(created.id); // nothing half-made stays behind
      throw new AppError({
        code: "INTERNAL_SERVER_ERROR",
        message: `Could not queue the build: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
    return created;
  }

  return {
    async overview(projectId: string): Promise<EnvironmentOverview> {
      await project(projectId);
      const versions = await deps.environments.list(projectId);
      const byId = new Map(versions.map((v) => [v.id, v]));
      let diskBytes = 0;
      for (const v of versions) {
        if (v.status !== "ready" || v.sizeBytes === null) continue;
        const parent = v.parentId ? byId.get(v.parentId) : undefined;
        diskBytes += parent?.sizeBytes != null ? Math.max(0, v.sizeBytes - parent.sizeBytes) : v.sizeBytes;
      }
      return { versions, diskBytes };
    },

    /** Builds a version from the project's base image: base + the Codex CLI + a home directory. */
    async prepare(projectId: string): Promise<EnvironmentVersionView> {
      const p = await project(projectId);
      return enqueue({
        projectId,
        fromImage: p.baseImage ?? deps.defaultBaseImage,
        kind: "base",
        command: null,
        parentId: null,
      });
    },

    /** Runs a command in a container of the active version; exit 0 makes the result the new active version. */
    async prepareWithCommand(projectId: string, command: string): Promise<EnvironmentVersionView> {
      const active = await deps.environments.active(projectId);
      if (!active?.imageId) {
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: "This project has no ready environment yet. Prepare the environment first, then run commands in it.",
        });
      }
      return enqueue({ projectId, fromImage: active.imageTag, kind: "command", command, parentId: active.id });
    },

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
      if (v.status === "ready")
        await deps.queue.enqueue({ job: removeEnvironmentImageJob, data: { reference: v.imageTag }, keep: 100 });
      return { id: versionId };
    },

    async log(versionId: string): Promise<string> {
      const v = await version(versionId);
      if (!v.logPath) return "";
      return fs.readFile(path.join(deps.dataDir, v.logPath), "utf8").catch(() => "");
    },

    /** Applies a worker's environment event (called by the recorder before it acknowledges the event). */
    /**
     * Versions left `building` with no worker to finish them: their job failed (its worker died and BullMQ
     * gave up on it) or is gone from Redis. They become `failed` with the reason, so the project can be
     * prepared again. A build whose job still waits or runs is left alone.
     */
    async sweepStalled(): Promise<string[]> {
      const swept: string[] = [];
      for (const building of await deps.environments.allBuilding()) {
        const jobId = `environment-${building.id}`;
        const state = await deps.queue.state(jobId);
        if (state !== "failed" && state !== "missing") continue;
        const reason =
          state === "failed"
            ? ((await deps.queue.failedReason(jobId)) ?? "its worker stopped")
            : "its job is gone from the queue (was Redis reset?)";
        const finished = await deps.environments.finish(building.id, {
          status: "failed",
          durationMs: Date.now() - new Date(building.createdAt).getTime(),
          error: `The build did not finish: ${reason}. Prepare the environment again.`,
        });
        if (finished) swept.push(building.id);
      }
      return swept;
    },

    async recordEvent(event: InvariantEvent, options: { firstTime: boolean }): Promise<void> {
      if (event.type === "environment.log") {
        if (!options.firstTime) return; // appending twice would duplicate output
        const relative = path.join("logs", "environments", `${event.data.versionId}.log`);
        await fs.mkdir(path.join(deps.dataDir, "logs", "environments"), { recursive: true });
        await fs.appendFile(path.join(deps.dataDir, relative), event.data.text);
        await deps.environments.setLogPath(event.data.versionId, relative);
      } else if (event.type === "environment.finished") {
        const { versionId, ...result } = event.data;
        await deps.environments.finish(versionId, result); // a no-op when already finished
      }
    },
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
