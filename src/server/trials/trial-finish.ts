import type { AgentRunResult } from "../agents/agent-run";
import type { EvaluationResult } from "./evaluation";
import type { TrialContext } from "./trial-context";
import type { DiffTotals } from "./trial-evaluation-step";
import { verdictSummary } from "../../shared/verdict-summary";
import type { TrialEndState } from "../../shared/vocabulary";

export type { TrialEndState };

/** Everything a trial attempt produced, filled in step by step; what a step did not reach stays null. */
export interface TrialOutcome {
  stoppedBy: string | null;
  error: string | null;
  commandsRun: number;
  workspaceId: string | null;
  agent: AgentRunResult | null;
  diff: DiffTotals | null;
  evaluation: EvaluationResult | null;
  evaluationFile: string | null;
}

function endState(outcome: TrialOutcome): { state: TrialEndState; reason: string | null } {
  const { stoppedBy, error, agent } = outcome;
  const agentFailed = agent !== null && agent.outcome.status !== "succeeded";
  const state: TrialEndState = stoppedBy ? "stopped" : error ? "error" : agentFailed ? "failed" : "succeeded";
  const reason = stoppedBy ?? error ?? (agent && agent.outcome.status !== "succeeded" ? agent.outcome.reason : null);
  return { state, reason };
}

/** Closes the log and publishes `trial.finished`, the result the web process records. */
export async function finishTrial(options: { context: TrialContext; outcome: TrialOutcome }): Promise<TrialEndState> {
  const { context, outcome } = options;
  const { deps, job, ids, runId } = context;
  const { agent, evaluation } = outcome;
  const { state, reason } = endState(outcome);
  context.note(`Trial ${state}${reason ? `: ${reason}` : ""}`);
  await context.log.close();
  const verdict = outcome.stoppedBy ? null : (evaluation?.verdict ?? null);
  await deps.publish({
    type: "trial.finished",
    ...ids,
    data: {
      attempt: job.attempt,
      state,
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
      committedImageId: agent?.committedImageId ?? null,
      workspaceId: outcome.workspaceId,
      diff: outcome.diff,
    },
  });
  return state;
}
