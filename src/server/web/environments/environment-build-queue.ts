import { AppError } from "../../core/errors/app-error";
import {
  prepareEnvironmentJob,
  type DevcontainerBuild,
  type PrepareEnvironmentJob,
} from "../../core/jobs/environment-jobs";
import type { DevcontainerRecord } from "../../../shared/devcontainer-schemas";
import type { EnvironmentQueries, EnvironmentVersionView } from "./environments.queries";
import type { JobQueue } from "../../core/jobs/job-queue";
import type { ProjectLookup } from "../../../shared/project-schemas";
import type { DependencyBuild } from "../../core/dependencies/dependency-step-plan";
import type { InstalledDependencies } from "../../../shared/dependency-schemas";
import { containerLimitsOf } from "../../../shared/project-schemas";
import { messageOf } from "../../../shared/error-message";

/** What the environment service and its build queue need (environment-service.ts, dependency-service.ts). */
export interface EnvironmentDeps {
  environments: EnvironmentQueries;
  projects: ProjectLookup;
  queue: JobQueue;
  dataDir: string;
  /** The global default base image (INVARIANT_BASE_IMAGE); a project's own setting wins. */
  defaultBaseImage: string;
  prepareTimeoutMs?: number;
}

export const DEFAULT_PREPARE_TIMEOUT_MS = 30 * 60 * 1000;

/** Docker repository for a project's environment images (lowercase, registry-free). */
export function imageRepository(projectId: string): string {
  return `invariant-env/${projectId.toLowerCase()}`;
}

function buildJobId(versionId: string): string {
  return `environment-${versionId}`;
}

export async function findProject(deps: Pick<EnvironmentDeps, "projects">, projectId: string) {
  const found = await deps.projects.findById(projectId);
  if (!found) throw new AppError({ code: "NOT_FOUND", message: `No project with id ${projectId}.` });
  return found;
}

/** A new `building` version row and its `environment.prepare` job; one build per project at a time. */
export async function enqueueBuild(
  deps: EnvironmentDeps,
  input: {
    projectId: string;
    fromImage: string;
    kind: "base" | "command" | "dependencies" | "devcontainer";
    command: string | null;
    parentId: string | null;
    /** A dependency step: what the new version will carry, and the job's folder and outputs. */
    dependencies?: { installed: InstalledDependencies; build: DependencyBuild };
    /** A command of the user's own with network, whatever the project's mode for agents and tests. */
    withNetwork?: boolean;
    /** A devcontainer.json build: what the job runs, and what the version records. */
    devcontainer?: { build: DevcontainerBuild; record: DevcontainerRecord };
  },
): Promise<EnvironmentVersionView> {
  const p = await findProject(deps, input.projectId);
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
    ...(input.dependencies ? { dependencies: input.dependencies.installed } : {}),
    ...(input.devcontainer ? { devcontainer: input.devcontainer.record } : {}),
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
    // a dependency step downloads packages, and a prepare command is the user's own (network on unless
    // switched off), whatever the project's mode for agents and tests
    network: input.kind === "dependencies" || input.withNetwork ? "internet" : p.networkMode,
    limits: containerLimitsOf(p),
    runAsRoot: p.runAsRoot,
    timeoutMs: deps.prepareTimeoutMs ?? DEFAULT_PREPARE_TIMEOUT_MS,
    ...(input.dependencies ? { dependencies: input.dependencies.build } : {}),
    ...(input.devcontainer ? { devcontainer: input.devcontainer.build } : {}),
  };
  try {
    await deps.queue.enqueue({
      job: prepareEnvironmentJob,
      data: job,
      jobId: buildJobId(created.id),
      keep: 100,
    });
  } catch (error) {
    await deps.environments.remove(created.id); // nothing half-made stays behind
    throw new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `Could not queue the build: ${messageOf(error)}`,
      cause: error,
    });
  }
  return created;
}

/**
 * Versions left `building` with no worker to finish them: their job failed (its worker died and BullMQ
 * gave up on it) or is gone from Redis. They become `failed` with the reason, so the project can be
 * prepared again. A build whose job still waits or runs is left alone.
 */
export async function sweepStalledBuilds(deps: Pick<EnvironmentDeps, "environments" | "queue">): Promise<string[]> {
  const swept: string[] = [];
  for (const building of await deps.environments.allBuilding()) {
    // a session's "save installed tools" commits in the web process itself, with no job (sessions settle those)
    if (building.origin === "session") continue;
    const jobId = buildJobId(building.id);
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
}
