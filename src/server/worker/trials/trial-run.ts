import type { TrialRunJob } from "../../core/jobs/study-jobs";
import { localArtifactSource } from "../../core/artifacts/artifact-source";
import { dataDirPaths } from "../../core/storage/data-dir";
import { createWorkspace } from "../../core/workspaces/workspace-store";
import { chooseWorkspaceKind } from "../../core/workspaces/workspace-kind";
import { resetAgentGitDir } from "../../core/snapshots/host-git";
import { runAgentStep } from "./trial-agent-step";
import { prepareFollowUp } from "./trial-follow-up";
import { openTrialContext, type TrialContext, type TrialRunDeps } from "./trial-context";
import { recordDiff, runEvaluationStep } from "./trial-evaluation-step";
import { finishTrial, type TrialResults } from "./trial-finish";
import type { TrialEndState } from "../../../shared/vocabulary";
import { watchForStop, type TrialStopWatch } from "./trial-stop-watch";
import { INTERRUPTED, whileStep } from "../../../shared/trial-steps";
import { messageOf } from "../../../shared/error-message";

function message(error: unknown): string {
  return messageOf(error);
}

/** The attempt's private workspace: a new one of the frozen snapshot, or for a follow-up a copy of its parent's. */
async function prepareWorkspace(context: TrialContext) {
  const { deps, job } = context;
  if (job.followUp) {
    await context.progress("preparing", "Copying the parent trial's workspace and conversation for the follow-up");
    await (deps.artifacts ?? localArtifactSource).prepare(job);
    return prepareFollowUp({ context, followUp: job.followUp });
  }
  const kind = await chooseWorkspaceKind({
    setting: deps.workspaceKind,
    runtime: deps.runtime,
    dataDir: deps.dataDir,
    image: job.image,
    log: (text) => context.note(text),
  });
  await context.progress(
    "preparing",
    kind === "overlay"
      ? "Making a copy-on-write workspace over the frozen snapshot"
      : "Copying the frozen snapshot into a private workspace",
  );
  await (deps.artifacts ?? localArtifactSource).prepare(job);
  return createWorkspace({ dataDir: deps.dataDir, snapshotId: job.snapshotId, kind });
}

/** The steps in order; each is skipped once a stop was requested. */
async function runSteps(options: {
  context: TrialContext;
  stop: TrialStopWatch;
  outcome: TrialResults;
}): Promise<void> {
  const { context, stop, outcome } = options;
  const { deps, job, ids } = context;
  await deps.publish({ type: "trial.started", ...ids, data: { attempt: job.attempt, workspaceId: null } });

  const workspace = await prepareWorkspace(context);
  const kind = workspace.overlay ? "overlay" : "copy";
  outcome.workspaceId = workspace.id;
  // on record before the agent starts: a worker that dies from here on leaves nothing nobody knows of
  await deps.publish({
    type: "trial.artefacts",
    ...ids,
    data: { attempt: job.attempt, workspaceId: workspace.id, workspaceKind: kind },
  });
  // the workspace's .git borrows the snapshot's objects: containers see them at the same path
  const gitObjects = dataDirPaths(deps.dataDir).snapshot(job.snapshotId).gitObjects;
  const extraMounts = [{ hostPath: gitObjects, containerPath: gitObjects }];
  if (stop.stoppedBy || deps.leaving?.()) return;

  outcome.agent = await runAgentStep({ context, workspace, extraMounts, counter: outcome });
  const where = deps.artifacts?.imageLocation;
  if (outcome.agent.committedImageId)
    await deps.publish({
      type: "trial.artefacts",
      ...ids,
      data: {
        attempt: job.attempt,
        committedImageId: outcome.agent.committedImageId,
        ...(where ? { imageWorker: where.worker, imageHost: where.host } : {}),
      },
    });
  // the agent's .git may now name programs (fsmonitor, hooks, filters): put its config back to the template
  await resetAgentGitDir({ tree: workspace.path });
  // past its disk budget: no copy of the workspace for the test command (it would double what was written);
  // a worker that is stopping removed the agent's container: its trial is interrupted, not evaluated
  if (stop.stoppedBy || outcome.agent.diskExceeded || deps.leaving?.()) return;

  const recorded = await recordDiff({ context, workspace });
  outcome.diff = recorded.totals;
  await runEvaluationStep({ context, workspace, diff: recorded.diff, extraMounts, stop, outcome });
}

/**
 * A trial its stopping worker gave up on: the log says so, naming the step it was in, and nothing is
 * reported (no finish, no report on disk), so the web process's sweeper records it `interrupted` with the
 * same step. The job fails with the same sentence, which the sweeper takes for an interruption too (a
 * Redis that was down while the worker stopped may hear of the failure before the heartbeat expires).
 */
async function interrupt(context: TrialContext, leaving: string): Promise<never> {
  const sentence = `${INTERRUPTED}${leaving} ${whileStep(context.state())}. Its containers were removed; retry it to run it again.`;
  context.note(sentence);
  await context.log.close();
  throw new Error(sentence);
}

/**
 * One trial of a study, start to verdict:
 *   preparing  — a private workspace from the frozen snapshot (copy-on-write where the engine allows);
 *   agent      — the agent run in a container of the frozen image (its container is committed afterwards);
 *   evaluating — the diff, then the test command in a fresh container on a copy of the workspace (or a
 *                fresh layer over it) holding the snapshot plus exactly the diff's changes, with the captured
 *                test files restored byte for byte, and the verdict (with the test-steering files changed).
 * Every step is published as it happens; the result is a `trial.finished` event the web process records
 * (none when the worker gave up on it while stopping: see `interrupt`).
 * The agent's workspace is kept (diff, apply, continuation); the evaluation's copy is removed.
 */
export async function runTrial(deps: TrialRunDeps, job: TrialRunJob): Promise<{ state: TrialEndState }> {
  const context = openTrialContext(deps, job);
  const stop = watchForStop(context);
  const outcome: TrialResults = {
    stoppedBy: null,
    error: null,
    commandsRun: 0,
    workspaceId: null,
    agent: null,
    diff: null,
    evaluation: null,
    evaluationFile: null,
    capturedChanges: null,
    testSteering: null,
  };
  try {
    if (!(await stop.checkNow())) await runSteps({ context, stop, outcome });
  } catch (caught) {
    // a step that failed because the stopping worker removed its container is no error of the trial's
    if (!deps.leaving?.()) {
      outcome.error = `The trial could not finish: ${message(caught)}`;
      context.note(outcome.error);
    }
  } finally {
    stop.close();
  }
  const leaving = deps.leaving?.();
  if (leaving) return interrupt(context, leaving);
  outcome.stoppedBy = stop.stoppedBy;
  return { state: await finishTrial({ context, outcome }) };
}
