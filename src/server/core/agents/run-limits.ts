import type { ModelGateway } from "../gateway/model-gateway";
import { diskBudgetReason, type DiskOverrun } from "../runtime/disk-budget";
import { totalTokens } from "../../../shared/token-usage";
import { budgetReason } from "./run-policy";

/** Which limit stopped the run, if one did: its disk budget, its time limit, its token budget. */
export function limitReason(options: {
  gateway: ModelGateway;
  input: { runId: string; timeoutMs: number; budgetTokens: number | null };
  overDisk: DiskOverrun | null;
  timedOut: boolean;
  budgetReached: boolean;
}): string | null {
  const { input } = options;
  if (options.overDisk) return diskBudgetReason(options.overDisk);
  if (options.timedOut) return `Stopped after ${Math.round(input.timeoutMs / 1000)} s: the agent time limit.`;
  if (options.budgetReached) return budgetStop({ gateway: options.gateway, input });
  return null;
}

/** Why a run that reached its token budget stopped, with the gateway's figures. */
function budgetStop(options: { gateway: ModelGateway; input: { runId: string; budgetTokens: number | null } }): string {
  const used = options.gateway.usage(options.input.runId);
  return budgetReason({ usedTokens: used ? totalTokens(used) : 0, budgetTokens: options.input.budgetTokens });
}
