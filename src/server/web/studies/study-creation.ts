import { effortFor } from "../../../shared/harness-kinds";
import fsp from "node:fs/promises";
import { AppError } from "../../core/errors/app-error";
import type { EnvironmentQueries } from "../environments/environments.queries";
import type { JobQueue } from "../../core/jobs/job-queue";
import { preflightJobId, studyPreflightJob } from "../../core/jobs/study-jobs";
import type { ProjectQueries } from "../projects/projects.queries";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { SnapshotService } from "../snapshots/snapshot-service";
import { requireProjectFolder } from "../../core/storage/project-folder";
import { projectHeadCommit } from "../../core/git/project-git";
import { expandTestFiles } from "../../core/trial-records/test-file-patterns";
import { readTestFiles, storeTestFiles, testFilesDir } from "../../core/trial-records/test-files";
import { containerLimitsOf, type ProjectView } from "../../../shared/project-schemas";
import { createStudyInputSchema, type CreateStudyInput } from "../../../shared/study-inputs";
import type { StudyView } from "../../../shared/study-schemas";
import type { StudyQueries } from "./studies.queries";
import { announceStudyChange, requireStudy } from "./study-control";
import { studyDefaults } from "./study-defaults";
import type { NewStudy } from "./study-write.queries";
import { messageOf } from "../../../shared/error-message";
import type { EventPublisher } from "../../core/events/event-stream";

/** Creating a study: check, freeze the snapshot and the environment image, capture the tests, queue the preflight. */

export interface StudyCreationDeps {
  studies: StudyQueries;
  projects: Pick<ProjectQueries, "findById">;
  environments: Pick<EnvironmentQueries, "active">;
  snapshots: Pick<SnapshotService, "create">;
  runtime: Pick<ContainerRuntime, "inspectImage">;
  queue: JobQueue;
  publish: EventPublisher;
  dataDir: string;
  host: { cpus: number; memoryBytes: number };
  /** Ids and concurrency of the workers alive now (heartbeats). */
  liveWorkers: () => Promise<{ id: string; concurrency: number }[]>;
  log: (message: string) => void;
}

type ParsedInput = ReturnType<typeof createStudyInputSchema.parse>;

/** The project, its ready environment version and that version's image, or why a study cannot start. */
async function frozenEnvironment(deps: StudyCreationDeps, projectId: string) {
  const project = await deps.projects.findById(projectId);
  if (!project)
    throw new AppError({
      code: "NOT_FOUND",
      field: "projectId",
      message: `No project with id ${projectId}; choose one from the list.`,
    });
  requireProjectFolder(project.hostPath); // its tests and its snapshot are read from it
  const environment = await deps.environments.active(project.id);
  if (!environment || environment.status !== "ready" || !environment.imageId) {
    throw new AppError({
      code: "PRECONDITION_FAILED",
      field: "projectId",
      message: `${project.name} has no ready environment yet. Prepare one on the project page first.`,
    });
  }
  const image = await deps.runtime.inspectImage(environment.imageId);
  if (!image)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      field: "projectId",
      message: `The image of ${project.name}'s environment v${environment.version} is gone from Docker. Prepare the environment again.`,
    });
  return { project, environment, image };
}

function configurationsOf(input: ParsedInput): NewStudy["configurations"] {
  return input.configurations.map((configuration) => ({
    harness: configuration.harness,
    model: configuration.harness === "command" ? configuration.model || "(command)" : configuration.model,
    reasoningEffort: effortFor(configuration.harness, configuration.reasoningEffort),
    instructions: configuration.instructions,
    overrides: configuration.overrides,
    command: configuration.harness === "command" ? configuration.command : null,
    repeats: configuration.repeats,
    customLabel: configuration.label || null,
  }));
}

/** Queues the preflight; if that fails, nothing half-made stays behind. */
async function queuePreflight(
  deps: StudyCreationDeps,
  options: {
    studyId: string;
    project: ProjectView;
    snapshotId: string;
    image: string;
    input: ParsedInput;
    files: Awaited<ReturnType<typeof readTestFiles>>;
  },
): Promise<void> {
  const { studyId, project, input } = options;
  try {
    const testFiles = await storeTestFiles({ dataDir: deps.dataDir, studyId, files: options.files });
    await deps.queue.enqueue({
      job: studyPreflightJob,
      jobId: preflightJobId(studyId),
      data: {
        studyId,
        projectId: project.id,
        snapshotId: options.snapshotId,
        image: options.image,
        testCommand: input.testCommand,
        junitPath: input.junitPath,
        testFiles,
        network: project.networkMode,
        limits: containerLimitsOf(project),
        runAsRoot: project.runAsRoot,
        diskBudgetBytes: project.diskBudgetBytes,
        evalTimeoutMs: input.evalTimeoutSec * 1000,
      },
    });
  } catch (error) {
    await deps.studies.deleteStudy(studyId);
    await fsp.rm(testFilesDir({ dataDir: deps.dataDir, studyId }), { recursive: true, force: true });
    throw new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `Could not queue the study's preflight: ${messageOf(error)}`,
      cause: error,
    });
  }
}

/**
 * Checks everything, freezes the snapshot and the environment image, captures the test files (folders and
 * patterns expanded to the files they match: the study records those), and
 * queues the preflight. Bad input is refused before anything is written.
 */
export async function createStudy(
  deps: StudyCreationDeps,
  options: { raw: CreateStudyInput; createdBy: string },
): Promise<StudyView> {
  const input = createStudyInputSchema.parse(options.raw);
  const { project, environment, image } = await frozenEnvironment(deps, input.projectId);
  const expanded = await expandTestFiles({
    projectRoot: project.hostPath,
    files: input.testFiles,
    junitPath: input.junitPath,
  });
  const files = await readTestFiles({ projectRoot: project.hostPath, files: expanded });
  // the commit the snapshot stands on, for "Apply as a branch" (null: no git repository, or no commit yet)
  const snapshotCommit = await projectHeadCommit(project.hostPath);
  const snapshot = await deps.snapshots.create({ projectId: project.id });
  const concurrency = input.concurrency ?? (await studyDefaults({ ...deps, projectId: project.id })).concurrency;
  const studyId = await deps.studies.create({
    projectId: project.id,
    title: input.title,
    taskPrompt: input.taskPrompt,
    testCommand: input.testCommand,
    junitPath: input.junitPath,
    testFiles: files.map((file) => ({
      path: file.path,
      sha256: file.sha256,
      bytes: file.data.length,
      role: file.role,
      kind: file.kind ?? "file",
    })),
    snapshotId: snapshot.id,
    snapshotCommit,
    environmentVersionId: environment.id,
    imageId: image.id,
    imageDigest: image.id.startsWith("sha256:") ? image.id : null,
    concurrency,
    agentTimeoutSec: input.agentTimeoutSec,
    evalTimeoutSec: input.evalTimeoutSec,
    tokenBudget: input.tokenBudget,
    budgetTokens: input.budget?.tokens ?? null,
    budgetMoney: input.budget?.money ?? null,
    createdBy: options.createdBy,
    configurations: configurationsOf(input),
  });
  await queuePreflight(deps, { studyId, project, snapshotId: snapshot.id, image: image.id, input, files });
  await announceStudyChange(deps, { studyId, projectId: project.id, reason: "created" });
  return requireStudy(deps.studies, studyId);
}
