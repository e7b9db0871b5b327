import { describe, expect, it } from "vitest";
import type { AgentRunResult } from "../../core/agents/agent-run";
import type { EvaluationResult } from "./evaluation";
import { trialEndLine } from "../../../shared/trial-outcome";
import { endState, type TrialResults } from "./trial-finish";

const verdict = (passed: number, total: number) => ({
  passed,
  failed: total - passed,
  skipped: 0,
  total,
  source: "node-test" as const,
  ok: passed === total,
  tests: [],
  testsTruncated: false,
});

const agent = (fields: Partial<AgentRunResult> = {}): AgentRunResult => ({
  outcome: { status: "succeeded", threadId: "thr", finalMessage: null },
  threadId: "thr",
  meteredUsage: null,
  reportedUsage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 },
  agentSeconds: 3,
  exitCode: 0,
  timedOut: false,
  budgetReached: false,
  harnessVersion: null,
  committedImageId: null,
  commitError: null,
  ...fields,
});

const evaluation = (fields: Partial<EvaluationResult> = {}): EvaluationResult => ({
  verdict: verdict(0, 23),
  exitCode: 1,
  timedOut: false,
  durationMs: 1000,
  output: "",
  ...fields,
});

const outcome = (fields: Partial<TrialResults>): TrialResults => ({
  stoppedBy: null,
  error: null,
  commandsRun: 0,
  workspaceId: "ws",
  agent: null,
  diff: null,
  evaluation: null,
  evaluationFile: null,
  ...fields,
});

describe("how a worker ends a trial", () => {
  it("records a run that was evaluated as succeeded in the state machine and completed as its outcome, even at 0/23", () => {
    expect(endState(outcome({ agent: agent(), evaluation: evaluation() }))).toEqual({
      state: "succeeded",
      outcome: "completed",
      reason: null,
    });
  });

  it("tells an agent that failed from one cut at its time limit", () => {
    const failed = agent({ outcome: { status: "failed", threadId: null, reason: "Codex exited with code 1." } });
    expect(endState(outcome({ agent: failed, evaluation: evaluation() }))).toMatchObject({
      state: "failed",
      outcome: "agent-failed",
      reason: "Codex exited with code 1.",
    });
    const cut = agent({
      timedOut: true,
      outcome: { status: "stopped", threadId: null, reason: "Stopped after 60 s: the agent time limit." },
    });
    expect(endState(outcome({ agent: cut, evaluation: evaluation() }))).toMatchObject({
      state: "failed",
      outcome: "timed-out",
    });
  });

  it("calls an agent the gateway stopped at the trial's token budget 'stopped: budget', its work still evaluated", () => {
    const reason = "Stopped: the run used 1,200 tokens, reaching its token budget of 1,000.";
    const spent = agent({ budgetReached: true, outcome: { status: "stopped", threadId: "thr", reason } });
    expect(endState(outcome({ agent: spent, evaluation: evaluation() }))).toEqual({
      state: "failed",
      outcome: "budget",
      reason,
    });
    expect(trialEndLine({ outcome: "budget", verdict: verdict(3, 23), reason })).toBe(
      `Trial stopped: budget: ${reason} (3/23 tests passed)`,
    );
  });

  it("calls a test command past its time limit timed out, and other errors of ours error", () => {
    const late = evaluation({ timedOut: true });
    expect(endState(outcome({ agent: agent(), evaluation: late, error: "ran past the limit" }))).toMatchObject({
      state: "error",
      outcome: "timed-out",
    });
    expect(endState(outcome({ error: "The trial could not finish: Docker" }))).toMatchObject({
      state: "error",
      outcome: "error",
    });
  });

  it("lets a user's stop win over everything", () => {
    const cut = agent({ timedOut: true, outcome: { status: "stopped", threadId: null, reason: "Stopped by admin." } });
    expect(endState(outcome({ agent: cut, stoppedBy: "Stopped by admin." }))).toEqual({
      state: "stopped",
      outcome: "stopped",
      reason: "Stopped by admin.",
    });
  });
});
