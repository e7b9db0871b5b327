import type { ArtifactSource } from "../../core/artifacts/artifact-source";
import type { EventPublisher } from "../../core/events/event-stream";
import type { StudyPreflightJob } from "../../core/jobs/study-jobs";
import { verdictSummary } from "../../../shared/verdict-summary";
import type { PreflightStatus } from "../../../shared/vocabulary";
import type { WorkerIdentity } from "../../core/runtime/container-spec";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { diskBudgetReason } from "../../core/runtime/disk-budget";
import { dataDirPaths } from "../../core/storage/data-dir";
import { dependencyHint } from "../verdicts/dependency-hint";
import { preflightRefusal } from "../verdicts/preflight-refusal";
import { createWorkspace, removeWorkspace, type WorkspaceInfo } from "../../core/workspaces/workspace-store";
import { chooseWorkspaceKind, type WorkspaceKindSetting } from "../../core/workspaces/workspace-kind";
import { workspaceMount } from "../../core/workspaces/workspace-mount";
import { prepareEvaluationLayer } from "./evaluation-layer";
import { runEvaluation } from "./evaluation";
import { clearJunitPath } from "./captured-changes";
import { restoreTestFiles } from "../../core/trial-records/test-files";
import { messageOf } from "../../../shared/error-message";

export interface PreflightDeps {
  runtime: ContainerRuntime;
  dataDir: string;
  publish: EventPublisher;
  worker: WorkerIdentity;
  active: Set<string>;
  /** Where the snapshot, test files and image come from (default: the shared data dir). */
  artifacts?: ArtifactSource;
  clock?: () => number;
  /** Which kind of workspace the preflight gets (INVARIANT_WORKSPACE_KIND; default auto). */
  workspaceKind?: WorkspaceKindSetting;
}

const OUTPUT_TAIL_CHARS = 8 * 1024;

interface PreflightResult {
  status: PreflightStatus;
  refusal: string | null;
  verdict: Awaited<ReturnType<typeof runEvaluation>>["verdict"] | null;
  exitCode: number | null;
  outputTail: string;
}

/** The output, with a closing line pointing at the dependency step when a module failed to load. */
function withDependencyHint(output: string): string {
  const hint = dependencyHint(output);
  return hint ? `${output.replace(/\n?$/, "\n")}[invariant-web] ${hint}\n` : output;
}

/** The test command on the untouched workspace (captured test files restored), and whether it can judge anything. */
async function evaluateUntouched(options: {
  deps: PreflightDeps;
  job: StudyPreflightJob;
  workspace: WorkspaceInfo;
}): Promise<PreflightResult> {
  const { deps, job, workspace } = options;
  // a stale report in the snapshot (the user's last run) must not stand in for the baseline's: a copy's
  // JUnit path is cleared, an overlay's report is read from its own layer, which the snapshot is not in
  if (workspace.overlay) {
    const below = [workspace.overlay.lower];
    await prepareEvaluationLayer({
      dataDir: deps.dataDir,
      studyId: job.studyId,
      upper: workspace.path,
      below,
      files: job.testFiles,
    });
  } else {
    await restoreTestFiles({ dataDir: deps.dataDir, studyId: job.studyId, tree: workspace.path, files: job.testFiles });
    await clearJunitPath({ tree: workspace.path, junitPath: job.junitPath });
  }
  const gitObjects = dataDirPaths(deps.dataDir).snapshot(job.snapshotId).gitObjects;
  let containerId: string | null = null;
  const evaluation = await runEvaluation({
    runtime: deps.runtime,
    image: job.image,
    tree: workspace.path,
    ...(workspace.overlay
      ? { workspace: workspaceMount({ path: workspace.path, overlay: workspace.overlay, containerPath: "/workspace" }) }
      : {}),
    extraMounts: [{ hostPath: gitObjects, containerPath: gitObjects, readOnly: true }],
    testCommand: job.testCommand,
    junitPath: job.junitPath,
    network: job.network,
    limits: job.limits,
    runAsRoot: job.runAsRoot,
    diskBudgetBytes: job.diskBudgetBytes,
    timeoutMs: job.evalTimeoutMs,
    labels: { project: job.projectId, role: "evaluation", worker: deps.worker, study: job.studyId },
    onOutput: () => undefined,
    onContainer: (id) => {
      if (containerId) deps.active.delete(containerId);
      containerId = id;
      if (id) deps.active.add(id);
    },
  });
  const refusal = evaluation.overDisk
    ? `The test command on the untouched project: ${diskBudgetReason(evaluation.overDisk)} Raise the budget or make the command write less.`
    : evaluation.timedOut
      ? `The test command did not finish within the evaluation time limit (${Math.round(job.evalTimeoutMs / 1000)} s) on the untouched project. Raise the limit or make the command faster.`
      : preflightRefusal({ verdict: evaluation.verdict, exitCode: evaluation.exitCode, output: evaluation.output });
  return {
    status: refusal ? "refused" : "passed",
    refusal,
    verdict: evaluation.verdict,
    exitCode: evaluation.exitCode,
    outputTail: withDependencyHint(evaluation.output.slice(-OUTPUT_TAIL_CHARS)),
  };
}

/**
 * The study's checks on the untouched snapshot, in the frozen image, before any model call: the
 * baseline verdict (say 0/23), or a refusal saying why the command cannot judge anything.
 */
export async function runPreflight(deps: PreflightDeps, job: StudyPreflightJob): Promise<{ status: PreflightStatus }> {
  const clock = deps.clock ?? Date.now;
  const started = clock();
  let result: PreflightResult;
  let workspaceId: string | null = null;
  try {
    await deps.artifacts?.prepare(job);
    const kind = await chooseWorkspaceKind({
      setting: deps.workspaceKind,
      runtime: deps.runtime,
      dataDir: deps.dataDir,
      image: job.image,
    });
    const workspace = await createWorkspace({ dataDir: deps.dataDir, snapshotId: job.snapshotId, kind });
    workspaceId = workspace.id;
    result = await evaluateUntouched({ deps, job, workspace });
  } catch (error) {
    const text = messageOf(error);
    result = {
      status: "refused",
      refusal: `The test command could not be run: ${text}`,
      verdict: null,
      exitCode: null,
      outputTail: "",
    };
  } finally {
    if (workspaceId) await removeWorkspace({ dataDir: deps.dataDir, workspaceId }).catch(() => undefined);
  }
  const { verdict } = result;
  await deps.publish({
    type: "study.preflight-finished",
    projectId: job.projectId,
    studyId: job.studyId,
    workerId: deps.worker.id,
    data: {
      status: result.status,
      refusal: result.refusal,
      verdict: verdictSummary(verdict),
      exitCode: result.exitCode,
      durationMs: clock() - started,
      outputTail: result.outputTail,
    },
  });
  return { status: result.status };
}
