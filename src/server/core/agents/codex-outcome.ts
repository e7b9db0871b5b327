import type { CodexRunState } from "./codex-events";

/** How an agent run ended, with a reason a person can act on. */
export type RunOutcome =
  | { status: "succeeded"; threadId: string | null; finalMessage: string | null }
  | { status: "failed"; threadId: string | null; reason: string }
  | { status: "stopped"; threadId: string | null; reason: string };

export interface RunExit {
  /** The process's exit code; null when it was killed by a signal. */
  exitCode: number | null;
  signal?: string | null;
  /** Set by the caller when it stopped the run itself (timeout, token budget, user). */
  stoppedBecause?: string | null;
  /**
   * What the model gateway saw go wrong for this run, if anything: upstream ("HTTP 500: …"), or a
   * request it refused itself ("refused a request: …").
   */
  upstreamError?: string | null;
}

/**
 * Maps an agent CLI's exit and what its events said to an outcome. Precedence: a stop we caused, then
 * a failed turn (the model or its provider failed), then a non-zero exit, then a run that never
 * completed a turn. `agent` names the CLI in the reasons (Codex, Claude Code, Gemini CLI): every
 * harness's parser keeps the same run state, so one rule serves them all.
 */
export function agentRunOutcome(options: { state: CodexRunState; exit: RunExit; agent: string }): RunOutcome {
  const { state, exit, agent } = options;
  const threadId = state.threadId;
  const gatewayError = exit.upstreamError ?? null;
  const upstream = !gatewayError
    ? ""
    : gatewayError.startsWith("refused")
      ? ` (model gateway ${gatewayError})`
      : ` (model gateway: upstream answered ${gatewayError})`;
  if (exit.stoppedBecause) return { status: "stopped", threadId, reason: exit.stoppedBecause };
  if (state.turnFailure !== null)
    return { status: "failed", threadId, reason: `The agent's turn failed: ${state.turnFailure}${upstream}` };
  if (exit.exitCode === null)
    return {
      status: "failed",
      threadId,
      reason: `${agent} was killed${exit.signal ? ` by ${exit.signal}` : ""} before it finished.`,
    };
  if (exit.exitCode !== 0) {
    const detail = state.lastError ? `: ${state.lastError}` : ".";
    return { status: "failed", threadId, reason: `${agent} exited with code ${exit.exitCode}${detail}${upstream}` };
  }
  if (state.turnsCompleted === 0 || state.turnsCompleted < state.turnsStarted) {
    return {
      status: "failed",
      threadId,
      reason: `${agent} exited without completing its turn${state.lastError ? `: ${state.lastError}` : "."}${upstream}`,
    };
  }
  return { status: "succeeded", threadId, finalMessage: state.lastAgentMessage };
}

/** A Codex run's outcome (agentRunOutcome naming Codex). */
export function codexRunOutcome(options: { state: CodexRunState; exit: RunExit }): RunOutcome {
  return agentRunOutcome({ ...options, agent: "Codex" });
}
