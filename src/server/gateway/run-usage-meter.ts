import { totalTokens, type TokenUsage } from "../agents/token-usage";
import type { RunRecord, RunTokens } from "./run-tokens";
import { createSseUsageMeter, type SseUsageMeter } from "./sse-usage-meter";

/** Meters a run's tokens from its Responses API event stream; past the budget, says so once. */
export function createRunUsageMeter(options: {
  run: RunRecord;
  runs: RunTokens;
  onUsage?: (event: { runId: string; usage: TokenUsage; total: TokenUsage }) => void;
  onBudgetExceeded?: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  log: (line: string) => void;
  redact: (text: string) => string;
}): SseUsageMeter {
  const { run } = options;
  return createSseUsageMeter({
    onUsage: (usage) => {
      const recorded = options.runs.record(run.runId, usage);
      if (!recorded) return;
      options.onUsage?.({ runId: run.runId, usage, total: recorded.total });
      if (recorded.crossedBudget && run.budgetTokens !== null) {
        options.log(
          `model gateway: run ${run.runId} reached its token budget (${totalTokens(recorded.total)} of ${run.budgetTokens})`,
        );
        options.onBudgetExceeded?.({
          runId: run.runId,
          usedTokens: totalTokens(recorded.total),
          budgetTokens: run.budgetTokens,
        });
      }
    },
    onModel: (model) => {
      run.reportedModel = model;
    },
    onStreamError: (message) => {
      run.lastUpstreamError = options.redact(message);
    },
  });
}
