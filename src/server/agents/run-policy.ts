import type { RunPolicy } from "../gateway/request-policy";
import type { AgentRunInput } from "./agent-run";

/**
 * What the model gateway lets a run ask the provider for: its configuration's model (a command
 * harness names none), and hosted tools and URL inputs only where the project's network is allowed.
 */
export function runPolicy(input: {
  harness: AgentRunInput["harness"];
  network: AgentRunInput["network"];
  allowHostedTools?: boolean;
}): RunPolicy {
  return {
    model: input.harness.kind === "codex" ? input.harness.model : null,
    hostedTools: input.network === "internet" || input.allowHostedTools === true,
  };
}

/** "Stopped: the run used 1,234 tokens, reaching its token budget of 1,000." */
export function budgetReason(options: { usedTokens: number; budgetTokens: number | null }): string {
  const figure = (n: number) => n.toLocaleString("en-US");
  return `Stopped: the run used ${figure(options.usedTokens)} tokens, reaching its token budget of ${figure(options.budgetTokens ?? 0)}.`;
}
