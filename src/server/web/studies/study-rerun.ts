import fsp from "node:fs/promises";
import { firstAttempts } from "../../../shared/study-aggregates";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import type { JobQueue } from "../../core/jobs/job-queue";
import { preflightJobId, studyPreflightJob } from "../../core/jobs/study-jobs";
import type { ProjectQueries } from "../projects/projects.queries";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { SnapshotService } from "../snapshots/snapshot-service";
import { storeTestFiles, testFilesDir, type CapturedTestFile } from "../../core/trial-records/test-files";
import { sha256Of as sha256 } from "../../../lib/files/file-read";
import type { StudyView } from "../../../shared/study-schemas";
import type { ManifestInputs, TrialManifest } from "../../../shared/trial-manifest";
import type { StudyQueries } from "./studies.queries";
import { announceStudyChange, requireStudy } from "./study-control";
import type { NewStudy } from "./study-write.queries";
import { messageOf } from "../../../shared/error-message";
import type { EventPublisher } from "../../core/events/event-stream";

/**
 * Rerunning a trial or a whole study exactly from its manifests: a new study on the same snapshot,
 * environment image, captured test files, test command, limits and configurations, pointing to the
 * original (`rerunOf`). Refused, with the reason, when a part is gone (the image deleted, the snapshot or
 * the captured files removed, the project deleted).
 */
export interface StudyRerunDeps {
  studies: StudyQueries;
  projects: Pick<ProjectQueries, "findById">;
  snapshots: Pick<SnapshotService, "get">;
  runtime: Pick<ContainerRuntime, "inspectImage">;
  queue: JobQueue;
  publish: EventPublisher;
  dataDir: string;
  log: (message: string) => void;
}

const refuse = (message: string): never => {
  throw new AppError({ code: "PRECONDITION_FAILED", message: `Cannot rerun: ${message}` });
};

/** The manifests a rerun is made from: the one trial's, or every queued trial's of the study. */
function manifestsOf(study: StudyView, trialId: string | undefined): { manifest: TrialManifest; choice: number }[] {
  // a follow-up continued its parent's conversation with review feedback: a rerun reproduces first attempts
  const trials = trialId ? study.trials.filter((trial) => trial.id === trialId) : firstAttempts(study.trials);
  if (trialId && trials.length === 0) refuse(`no trial ${trialId} in study "${study.title}".`);
  if (trials[0]?.parentTrialId)
    refuse("this trial is a follow-up: it continued its parent's conversation with review feedback. Rerun its parent.");
  const found = trials.flatMap((trial) => (trial.manifest ? [{ manifest: trial.manifest, choice: trial.choice }] : []));
  if (found.length === 0)
    refuse(
      trialId
        ? "this trial has no manifest (it was never queued, or it ran before manifests were recorded)."
        : "no trial of this study has a manifest (none was queued, or they ran before manifests were recorded).",
    );
  return found;
}

/** Every part the manifest names must still be there; the first one missing is the reason. */
async function checkParts(deps: StudyRerunDeps, study: StudyView, manifest: ManifestInputs): Promise<void> {
  const project = await deps.projects.findById(study.projectId);
  if (!project) refuse("the study's project was deleted.");
  const { imageId, version } = manifest.environment;
  const versionText = version === null ? "" : ` (environment v${version})`;
  if (!imageId) refuse("the manifest names no environment image.");
  else if (!(await deps.runtime.inspectImage(imageId)))
    refuse(
      `the environment image ${imageId.slice(0, 19)}${versionText} was deleted from Docker, and a rerun needs that exact image.`,
    );
  if (!manifest.snapshot.id) refuse("the manifest names no snapshot.");
  else
    await deps.snapshots
      .get({ snapshotId: manifest.snapshot.id })
      .catch(() =>
        refuse(`the snapshot ${manifest.snapshot.id?.slice(0, 12)} is gone (deleted with its project's data).`),
      );
}

/** The original's captured files, each checked against its hash; refused when one is missing or changed. */
async function capturedFiles(dataDir: string, studyId: string, manifest: ManifestInputs): Promise<CapturedTestFile[]> {
  const dir = testFilesDir({ dataDir, studyId });
  const files: CapturedTestFile[] = [];
  for (const file of manifest.testFiles) {
    const data = await fsp.readFile(path.join(dir, file.sha256)).catch(() => null);
    if (!data || sha256(data) !== file.sha256)
      refuse(`the captured copy of ${file.path} (sha256 ${file.sha256.slice(0, 12)}) is gone or changed.`);
    else files.push({ path: file.path, role: file.role, kind: file.kind, data, sha256: file.sha256 });
  }
  return files;
}

/** One configuration per original configuration, as its manifests recorded it, with as many repeats as it had trials. */
/** The configurations the manifests ran, keeping the original's labels. */
function configurationsOf(
  manifests: { manifest: TrialManifest; choice: number }[],
  original: StudyView,
): NewStudy["configurations"] {
  const byChoice = new Map<number, { manifest: TrialManifest; repeats: number }>();
  for (const { manifest, choice } of manifests) {
    const entry = byChoice.get(choice);
    byChoice.set(choice, { manifest: entry?.manifest ?? manifest, repeats: (entry?.repeats ?? 0) + 1 });
  }
  return [...byChoice.entries()]
    .sort(([a], [b]) => a - b)
    .map(([choice, { manifest, repeats }]) => ({
      ...manifest.configuration,
      repeats,
      customLabel:
        original.configurations.find((configuration) => configuration.choice === choice)?.customLabel ?? null,
    }));
}

export async function rerunStudy(
  deps: StudyRerunDeps,
  options: { studyId: string; trialId?: string | undefined; by: string },
): Promise<StudyView> {
  const original = await requireStudy(deps.studies, options.studyId);
  const manifests = manifestsOf(original, options.trialId);
  const first = manifests[0]?.manifest as TrialManifest;
  await checkParts(deps, original, first);
  const files = await capturedFiles(deps.dataDir, original.id, first);
  const studyId = await deps.studies.create({
    projectId: original.projectId,
    title: `Rerun of ${original.title}${options.trialId ? ` (trial ${manifests[0]?.choice})` : ""}`.slice(0, 200),
    taskPrompt: first.taskPrompt,
    testCommand: first.testCommand,
    junitPath: first.junitPath,
    testFiles: first.testFiles,
    snapshotId: first.snapshot.id ?? "",
    environmentVersionId: await deps.studies.existingEnvironmentVersion(first.environment.versionId),
    imageId: first.environment.imageId ?? "",
    imageDigest: first.environment.imageDigest,
    concurrency: first.concurrency,
    agentTimeoutSec: first.agentTimeoutSec,
    evalTimeoutSec: first.evalTimeoutSec,
    tokenBudget: first.tokenBudget,
    createdBy: options.by,
    budgetTokens: original.budget.tokens,
    budgetMoney: original.budget.money,
    configurations: configurationsOf(manifests, original),
    rerun: { of: original.id, trial: options.trialId ?? null, limits: first.limits },
  });
  await queueRerunPreflight(deps, { studyId, original, manifest: first, files });
  deps.log(
    `studies: ${options.by} reran ${options.trialId ? `trial ${options.trialId} of ` : ""}${original.id} as ${studyId}`,
  );
  await announceStudyChange(deps, { studyId, projectId: original.projectId, reason: "created" });
  return requireStudy(deps.studies, studyId);
}

async function queueRerunPreflight(
  deps: StudyRerunDeps,
  options: { studyId: string; original: StudyView; manifest: ManifestInputs; files: CapturedTestFile[] },
): Promise<void> {
  const { studyId, manifest } = options;
  const { imageId } = manifest.environment;
  const snapshotId = manifest.snapshot.id;
  if (!imageId || !snapshotId) return refuse("the manifest names no image or no snapshot.");
  try {
    const testFiles = await storeTestFiles({ dataDir: deps.dataDir, studyId, files: options.files });
    const { network, allowHostedTools: _hosted, ...limits } = manifest.limits;
    await deps.queue.enqueue({
      job: studyPreflightJob,
      jobId: preflightJobId(studyId),
      data: {
        studyId,
        projectId: options.original.projectId,
        snapshotId,
        image: imageId,
        testCommand: manifest.testCommand,
        junitPath: manifest.junitPath,
        testFiles,
        network,
        limits,
        evalTimeoutMs: manifest.evalTimeoutSec * 1000,
      },
    });
  } catch (error) {
    await deps.studies.deleteStudy(studyId);
    await fsp.rm(testFilesDir({ dataDir: deps.dataDir, studyId }), { recursive: true, force: true });
    throw new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `Could not queue the rerun's preflight: ${messageOf(error)}`,
      cause: error,
    });
  }
}
