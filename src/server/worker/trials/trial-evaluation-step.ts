import { execFile } from "node:child_process";
import fsp from "node:fs/promises";
import { promisify } from "node:util";
import path from "node:path";
import { diffWorkspace, type WorkspaceDiff } from "../../core/diffs/workspace-diff";
import type { Mount } from "../../core/runtime/container-spec";
import { workspaceFiles, type WorkspaceFiles } from "../../core/workspaces/workspace-files";
import { removeTree, type WorkspaceInfo } from "../../core/workspaces/workspace-store";
import { evaluationMount, leaveOutOfCopy, pathsLeftOut, prepareEvaluationLayer } from "./evaluation-layer";
import { readManifest } from "../../core/snapshots/manifest";
import type { Verdict } from "../verdicts/verdict";
import { diskBudgetReason } from "../../core/runtime/disk-budget";
import { runEvaluation, type EvaluationResult } from "./evaluation";
import { restoreTestFiles } from "../../core/trial-records/test-files";
import { clearJunitPath, clearStaleRunnerState, findCapturedChanges } from "./captured-changes";
import { capturedChangesText, type CapturedChange } from "../../../shared/captured-files";
import { testSteeringText, type TestSteeringChange } from "../../../shared/test-steering";
import { displayPath } from "../../../lib/files/byte-path";
import { openSnapshotContent } from "../../core/snapshots/snapshot-content";
import { findTestSteering } from "./test-steering";
import { MAX_TEST_FILE_BYTES } from "../../../shared/study-inputs";
import type { TrialContext } from "./trial-context";
import type { TrialStopWatch } from "./trial-stop-watch";

const copyTree = promisify(execFile);

export interface DiffTotals {
  files: number;
  insertions: number;
  deletions: number;
}

/** What the evaluation step leaves behind, filled in as it goes (a failure midway keeps what was done). */
export interface EvaluationOutcome {
  evaluation: EvaluationResult | null;
  evaluationFile: string | null;
  /** Set when the test command ran past its time limit. */
  error: string | null;
  /** The captured files the agent changed (null or absent until checked). */
  capturedChanges?: CapturedChange[] | null;
  /** The changed files that steer how tests run (null or absent until checked): test-steering.ts. */
  testSteering?: TestSteeringChange[] | null;
}

export function verdictText(verdict: Verdict): string {
  if (verdict.total === null) return verdict.ok ? "pass" : "fail";
  return `${verdict.passed ?? 0}/${verdict.total}`;
}

/** The trial's workspace as the steps need it: its own files and, for a copy-on-write one, its other layers. */
export type TrialWorkspace = Pick<WorkspaceInfo, "path" | "overlay">;

/**
 * The diff of the agent's workspace against the frozen snapshot: its totals are published with the result,
 * and its changes are what the evaluation runs (the same computation as the review's).
 */
export async function recordDiff(options: {
  context: TrialContext;
  workspace: TrialWorkspace;
}): Promise<{ totals: DiffTotals; diff: WorkspaceDiff }> {
  const { context, workspace } = options;
  const { deps, job } = context;
  await context.progress("evaluating", "Recording the diff against the snapshot");
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
  const changes = await diffWorkspace({
    dataDir: deps.dataDir,
    manifest,
    workspaceRoot: workspace.path,
    overlayLower: workspace.overlay?.lower ?? null,
  });
  const diff = {
    files: changes.totals.files,
    insertions: changes.totals.insertions,
    deletions: changes.totals.deletions,
  };
  context.note(`${diff.files} files changed, ${diff.insertions} insertions(+), ${diff.deletions} deletions(-)`);
  for (const change of changes.changes) change.patch = null;
  return { totals: diff, diff: changes };
}

/** A copy of the workspace for the test command (reflinked where the filesystem can), so the agent's own stays as it left it. */
async function copyWorkspace(options: { from: string; to: string }): Promise<void> {
  await fsp.rm(options.to, { recursive: true, force: true });
  await copyTree("cp", ["-a", "--reflink=auto", `${options.from}/.`, `${options.to}/`]).catch(async () => {
    await fsp.mkdir(options.to, { recursive: true });
    await copyTree("cp", ["-a", `${options.from}/.`, `${options.to}/`]);
  });
}

/** Which captured files (and JUnit reports) the agent changed: noted in the log, published with the result. */
async function checkCapturedFiles(options: {
  context: TrialContext;
  workspace: WorkspaceFiles;
  outcome: EvaluationOutcome;
}): Promise<void> {
  const { context, workspace, outcome } = options;
  const { deps, job } = context;
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
  const changes = await findCapturedChanges({ workspace, files: job.testFiles, junitPath: job.junitPath, manifest });
  outcome.capturedChanges = changes;
  if (changes.length > 0)
    context.note(
      `The agent changed files the evaluation restores or clears (the verdict is unaffected): ${capturedChangesText(changes)}`,
    );
}

/** Which changed files steer how tests run (test-steering.ts): noted in the log, published with the verdict. */
async function checkTestSteering(options: {
  context: TrialContext;
  workspace: WorkspaceFiles;
  diff: WorkspaceDiff;
  outcome: EvaluationOutcome;
}): Promise<void> {
  const { context, workspace, diff, outcome } = options;
  const { deps, job } = context;
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
  const tracked = new Map(manifest.entries.map((entry) => [entry.path, entry]));
  const snapshot = openSnapshotContent({ dataDir: deps.dataDir, manifest });
  try {
    outcome.testSteering = await findTestSteering({
      changes: diff.changes,
      leftOut: diff.leftOut,
      captured: job.testFiles.map((file) => file.path),
      testCommand: job.testCommand,
      read: async (rel, side) => {
        if (side === "after") return workspace.readFile(displayPath(rel), MAX_TEST_FILE_BYTES).catch(() => null);
        const entry = tracked.get(rel);
        return entry?.type === "file" && entry.size <= MAX_TEST_FILE_BYTES ? snapshot.read(entry) : null;
      },
    });
  } finally {
    snapshot.close();
  }
  if (outcome.testSteering.length > 0)
    context.note(
      `Test configuration changed (a pass may not mean what it says; review these first): ${testSteeringText(outcome.testSteering)}`,
    );
}

/**
 * What the test command runs on: the snapshot plus exactly the changes the diff (and so the review) shows —
 * every path it left out is left out here too (evaluation-layer.ts) — with the captured files (tests and
 * runner config) restored byte for byte and no JUnit report but its own: for a copy workspace a copy of it
 * (restored, the JUnit path cleared), for a copy-on-write one a fresh layer over the agent's. The agent's
 * own workspace stays as it left it.
 */
async function prepareEvaluationTree(options: {
  context: TrialContext;
  workspace: TrialWorkspace;
  diff: WorkspaceDiff;
  outcome: EvaluationOutcome;
}): Promise<{ tree: string; mount?: Mount }> {
  const { context, workspace, diff, outcome } = options;
  const { deps, job, files } = context;
  const dir = files.evaluationTree;
  const reader = workspaceFiles(workspace);
  await checkCapturedFiles({ context, workspace: reader, outcome });
  await checkTestSteering({ context, workspace: reader, diff, outcome });
  const leaveOut = pathsLeftOut({ diff, files: job.testFiles });
  if (leaveOut.length > 0)
    context.note(
      `Left out of the evaluation, as of the review: ${leaveOut.length} path${leaveOut.length === 1 ? "" : "s"} the diff does not show (ignored, always excluded or special): ${leaveOut.slice(0, 20).map(displayPath).join(", ")}${leaveOut.length > 20 ? ", …" : ""}`,
    );
  if (!workspace.overlay) {
    await copyWorkspace({ from: workspace.path, to: dir });
    await leaveOutOfCopy({ tree: dir, paths: leaveOut });
    await restoreTestFiles({ dataDir: deps.dataDir, studyId: job.studyId, tree: dir, files: job.testFiles });
    await clearJunitPath({ tree: dir, junitPath: job.junitPath });
    await clearStaleRunnerState({ tree: dir });
    return { tree: dir };
  }
  await fsp.rm(dir, { recursive: true, force: true });
  const upper = path.join(dir, "upper");
  const workDir = path.join(dir, "work");
  await fsp.mkdir(upper, { recursive: true, mode: 0o755 });
  await fsp.mkdir(workDir, { mode: 0o700 });
  const below = [workspace.path, workspace.overlay.lower];
  await prepareEvaluationLayer({
    dataDir: deps.dataDir,
    studyId: job.studyId,
    upper,
    below,
    files: job.testFiles,
    leaveOut,
  });
  return { tree: upper, mount: evaluationMount({ upper, workDir, below }) };
}

/**
 * The test command in a fresh container on the evaluation tree above; the verdict is written to
 * evaluation.json and the tree is removed.
 */
export async function runEvaluationStep(options: {
  context: TrialContext;
  workspace: TrialWorkspace;
  /** The diff recordDiff made: what the evaluation runs. */
  diff: WorkspaceDiff;
  extraMounts: { hostPath: string; containerPath: string }[];
  stop: TrialStopWatch;
  outcome: EvaluationOutcome;
}): Promise<void> {
  const { context, stop, outcome } = options;
  const { deps, job, files, log } = context;
  await context.progress(
    "evaluating",
    `Restoring ${job.testFiles.length} captured test file${job.testFiles.length === 1 ? "" : "s"} and running: ${job.testCommand}`,
  );
  let container: string | null = null;
  let evaluation: EvaluationResult;
  try {
    const { tree, mount } = await prepareEvaluationTree({
      context,
      workspace: options.workspace,
      diff: options.diff,
      outcome,
    });
    evaluation = await runEvaluation({
      runtime: deps.runtime,
      image: job.image,
      tree,
      ...(mount ? { workspace: mount } : {}),
      extraMounts: options.extraMounts.map((extra) => ({ ...extra, readOnly: true })),
      testCommand: job.testCommand,
      junitPath: job.junitPath,
      network: job.network,
      limits: job.limits,
      runAsRoot: job.runAsRoot,
      diskBudgetBytes: job.diskBudgetBytes,
      timeoutMs: job.evalTimeoutMs,
      labels: {
        project: job.projectId,
        role: "evaluation",
        worker: deps.worker,
        study: job.studyId,
        trial: job.trialId,
      },
      onOutput: (text) => log.write(text),
      onContainer: (id) => {
        container = id;
        stop.setContainer(id);
        if (id) deps.active.add(id);
      },
    });
    outcome.evaluation = evaluation;
  } finally {
    if (container) deps.active.delete(container);
    stop.setContainer(null);
    await removeTree(files.evaluationTree);
  }
  const { note } = context;
  outcome.evaluationFile = files.evaluationFile;
  await fsp.writeFile(
    files.evaluationFile,
    JSON.stringify({ verdict: evaluation.verdict, exitCode: evaluation.exitCode, timedOut: evaluation.timedOut }),
  );
  note(
    `Verdict: ${verdictText(evaluation.verdict)} (${evaluation.verdict.source}), test command exit ${evaluation.exitCode ?? "—"} after ${(evaluation.durationMs / 1000).toFixed(1)} s`,
  );
  if (evaluation.overDisk) outcome.error = `The test command was stopped. ${diskBudgetReason(evaluation.overDisk)}`;
  else if (evaluation.timedOut)
    outcome.error = `The test command ran past the evaluation time limit (${Math.round(job.evalTimeoutMs / 1000)} s) and was stopped.`;
}
