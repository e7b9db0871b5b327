import { execFile } from "node:child_process";
import fsp from "node:fs/promises";
import { promisify } from "node:util";
import { diffWorkspace } from "../diffs/workspace-diff";
import { readManifest } from "../snapshots/manifest";
import type { Verdict } from "../verdicts/verdict";
import { diskBudgetReason } from "../runtime/disk-budget";
import { runEvaluation, type EvaluationResult } from "./evaluation";
import { restoreTestFiles } from "./test-files";
import { clearJunitPath, clearStaleRunnerState, findCapturedChanges } from "./captured-changes";
import { capturedChangesText, type CapturedChange } from "../../shared/captured-files";
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
}

export function verdictText(verdict: Verdict): string {
  if (verdict.total === null) return verdict.ok ? "pass" : "fail";
  return `${verdict.passed ?? 0}/${verdict.total}`;
}

/** The diff of the agent's workspace against the frozen snapshot (its totals are published with the result). */
export async function recordDiff(options: { context: TrialContext; workspacePath: string }): Promise<DiffTotals> {
  const { context } = options;
  const { deps, job } = context;
  await context.progress("evaluating", "Recording the diff against the snapshot");
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
  const changes = await diffWorkspace({ dataDir: deps.dataDir, manifest, workspaceRoot: options.workspacePath });
  const diff = {
    files: changes.totals.files,
    insertions: changes.totals.insertions,
    deletions: changes.totals.deletions,
  };
  context.note(`${diff.files} files changed, ${diff.insertions} insertions(+), ${diff.deletions} deletions(-)`);
  return diff;
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
  tree: string;
  outcome: EvaluationOutcome;
}): Promise<void> {
  const { context, tree, outcome } = options;
  const { deps, job } = context;
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
  const changes = await findCapturedChanges({ tree, files: job.testFiles, junitPath: job.junitPath, manifest });
  outcome.capturedChanges = changes;
  if (changes.length > 0)
    context.note(
      `The agent changed files the evaluation restores or clears (the verdict is unaffected): ${capturedChangesText(changes)}`,
    );
}

/**
 * The test command in a fresh container on a copy of the workspace with the captured files (tests and
 * runner config) restored byte for byte and the JUnit path cleared, so only what the test command itself
 * writes there is read; the verdict is written to evaluation.json and the copy is removed.
 */
export async function runEvaluationStep(options: {
  context: TrialContext;
  workspacePath: string;
  extraMounts: { hostPath: string; containerPath: string }[];
  stop: TrialStopWatch;
  outcome: EvaluationOutcome;
}): Promise<void> {
  const { context, stop, outcome } = options;
  const { deps, job, files, log, note } = context;
  await context.progress(
    "evaluating",
    `Restoring ${job.testFiles.length} captured test file${job.testFiles.length === 1 ? "" : "s"} and running: ${job.testCommand}`,
  );
  const tree = files.evaluationTree;
  await copyWorkspace({ from: options.workspacePath, to: tree });
  let container: string | null = null;
  let evaluation: EvaluationResult;
  try {
    await checkCapturedFiles({ context, tree, outcome });
    await restoreTestFiles({ dataDir: deps.dataDir, studyId: job.studyId, tree, files: job.testFiles });
    await clearJunitPath({ tree, junitPath: job.junitPath });
    await clearStaleRunnerState({ tree });
    evaluation = await runEvaluation({
      runtime: deps.runtime,
      image: job.image,
      tree,
      extraMounts: options.extraMounts.map((mount) => ({ ...mount, readOnly: true })),
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
    await fsp.rm(tree, { recursive: true, force: true });
  }
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
