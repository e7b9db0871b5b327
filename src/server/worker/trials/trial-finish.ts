import type { AgentRunResult } from "../../core/agents/agent-run";
import type { CapturedChange } from "../../../shared/captured-files";
import type { TestSteeringChange } from "../../../shared/test-steering";
import type { EvaluationResult } from "./evaluation";
import type { TrialContext } from "./trial-context";
import type { DiffTotals } from "./trial-evaluation-step";
import { verdictSummary } from "../../../shared/verdict-summary";
import { trialEndLine, type TrialOutcome } from "../../../shared/trial-outcome";
import type { TrialEndState } from "../../../shared/vocabulary";
import { writeFinishReport } from "../../core/trial-records/finish-outbox";
import { dataDirPaths } from "../../core/storage/data-dir";

/** Everything a trial attempt produced, filled in step by step; what a step did not reach stays null. */
export interface TrialResults {
  stoppedBy: string | null;
  error: string | null;
  commandsRun: number;
  workspaceId: string | null;
  agent: AgentRunResult | null;
  diff: DiffTotals | null;
  evaluation: EvaluationResult | null;
  evaluationFile: string | null;
  /** The captured files the agent changed, found before the evaluation restored them (null: not checked). */
  capturedChanges?: CapturedChange[] | null;
  /** The changed files that steer how tests run (null: not checked). */
  testSteering?: TestSteeringChange[] | null;
}

/**
 * The stored end state (the state machine) and the outcome the product shows: a run whose agent finished
 * and was evaluated is `succeeded` / `completed` whatever its verdict says; a run cut at a time limit
 * (the agent's or the test command's) is `timed-out`; an agent the gateway stopped at the trial's token
 * budget is `budget` ("stopped: budget"), its work so far evaluated; an agent or test command stopped at
 * the disk budget is `disk` ("stopped: disk").
 */
export function endState(outcome: TrialResults): {
  state: TrialEndState;
  outcome: TrialOutcome;
  reason: string | null;
} {
  const { stoppedBy, error, agent, evaluation } = outcome;
  const agentFailed = agent !== null && agent.outcome.status !== "succeeded";
  const state: TrialEndState = stoppedBy ? "stopped" : error ? "error" : agentFailed ? "failed" : "succeeded";
  const reason = stoppedBy ?? error ?? (agent && agent.outcome.status !== "succeeded" ? agent.outcome.reason : null);
  const timedOut = (state === "failed" && agent?.timedOut === true) || (state === "error" && evaluation?.timedOut);
  const overBudget = state === "failed" && agent?.budgetReached === true && !agent.timedOut;
  const overDisk =
    (state === "failed" && agent?.diskExceeded === true) ||
    (state === "error" && (evaluation?.overDisk ?? null) !== null);
  const shown: TrialOutcome = overDisk
    ? "disk"
    : timedOut
      ? "timed-out"
      : overBudget
        ? "budget"
        : state === "succeeded"
          ? "completed"
          : state === "failed"
            ? "agent-failed"
            : state;
  return { state, outcome: shown, reason };
}

/** Closes the log and publishes `trial.finished`, the result the web process records. */
export async function finishTrial(options: { context: TrialContext; outcome: TrialResults }): Promise<TrialEndState> {
  const { context, outcome } = options;
  const { deps, job, ids, runId } = context;
  const { agent, evaluation } = outcome;
  const { state, outcome: shown, reason } = endState(outcome);
  const verdict = outcome.stoppedBy ? null : (evaluation?.verdict ?? null);
  context.note(trialEndLine({ outcome: shown, verdict, reason }));
  await context.log.close();
  const finished = {
    type: "trial.finished" as const,
    ...ids,
    data: {
      attempt: job.attempt,
      state,
      outcome: shown,
      error: reason,
      verdict: verdictSummary(verdict),
      evaluationFile: verdict ? outcome.evaluationFile : null,
      exitCode: evaluation?.exitCode ?? null,
      agentSeconds: agent?.agentSeconds ?? null,
      evalSeconds: evaluation ? evaluation.durationMs / 1000 : null,
      usage: agent ? (agent.meteredUsage ?? agent.reportedUsage) : deps.meteredUsage(runId),
      commandsRun: outcome.commandsRun,
      threadId: agent?.threadId ?? null,
      harnessVersion: agent?.harnessVersion ?? null,
      reportedModel: agent?.reportedModel ?? null,
      committedImageId: agent?.committedImageId ?? null,
      workspaceId: outcome.workspaceId,
      diff: outcome.diff,
      capturedChanges: outcome.capturedChanges ?? null,
      testSteering: outcome.testSteering ?? null,
    },
  };
  // on disk first: if the event is lost on its way, the web process completes the trial from this report
  writeFinishReport({ dataDir: deps.dataDir, event: finished });
  // a worker on another host hands its changed files, log, evaluation and this report to the web process first
  await deps.artifacts?.deliver({
    trialId: ids.trialId,
    attempt: job.attempt,
    snapshotId: job.snapshotId,
    workspaceId: outcome.workspaceId,
    workspacePath: outcome.workspaceId ? dataDirPaths(deps.dataDir).workspace(outcome.workspaceId).tree : null,
    finished,
  });
  await deps.publish(finished);
  return state;
}
