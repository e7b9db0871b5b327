import { totalTokens, type TokenUsage } from "../../../shared/token-usage";
import { usageOfJsonBody } from "./json-usage";
import type { RunRecord, RunTokens } from "./run-tokens";
import { createSseUsageMeter, responsesDialect, type SseDialectFactory, type SseUsageMeter } from "./sse-usage-meter";
import { anthropicDialect } from "./apis/anthropic-usage";
import type { GatewayApi } from "./apis/gateway-api";
import { geminiDialect } from "./apis/gemini-usage";

const DIALECTS: Record<GatewayApi, SseDialectFactory> = {
  responses: responsesDialect,
  anthropic: anthropicDialect,
  gemini: geminiDialect,
};

/** Meters a run's answers: an event stream as it passes, a JSON body once read whole. */
export interface RunMetering {
  /** A meter for one event stream. */
  stream(): SseUsageMeter;
  /** Records a JSON answer's usage; returns why it cannot be metered, or null when it was. */
  json(body: Buffer): string | null;
  /**
   * Charges a request whose usage will never be known (a stream cut by either side, an answer without
   * usage) an estimate from its sizes: a token per 4 bytes of the request (its whole conversation: the
   * provider reads it all at once) and of the answer received so far — on the high side, so a request
   * cut on purpose cannot spend more than it is charged.
   */
  estimate(options: { requestBytes: number; responseBytes: number; why: string }): void;
}

export const BYTES_PER_ESTIMATED_TOKEN = 4;

/** Meters a run's tokens from its answers in the API they speak; past the budget, says so once. */
export function createRunMetering(options: {
  /** The API the answers speak (default Responses). */
  api?: GatewayApi;
  run: RunRecord;
  runs: RunTokens;
  onUsage?: (event: { runId: string; usage: TokenUsage; total: TokenUsage }) => void;
  onBudgetExceeded?: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  log: (line: string) => void;
  redact: (text: string) => string;
}): RunMetering {
  const { run } = options;
  const api = options.api ?? "responses";
  const record = (usage: TokenUsage) => {
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
  };
  return {
    stream: () =>
      createSseUsageMeter(
        {
          onUsage: record,
          onModel: (model) => {
            run.reportedModel = model;
          },
          onStreamError: (message) => {
            run.lastUpstreamError = options.redact(message);
          },
        },
        DIALECTS[api],
      ),
    json(body) {
      const found = usageOfJsonBody(body, api);
      if ("unmetered" in found) return found.unmetered;
      if (found.model) run.reportedModel = found.model;
      record(found.usage);
      return null;
    },
    estimate({ requestBytes, responseBytes, why }) {
      const usage: TokenUsage = {
        inputTokens: Math.ceil(requestBytes / BYTES_PER_ESTIMATED_TOKEN),
        cachedInputTokens: 0,
        outputTokens: Math.ceil(responseBytes / BYTES_PER_ESTIMATED_TOKEN),
        reasoningTokens: 0,
      };
      options.log(
        `model gateway: run ${run.runId}: a response's usage is unknown (${why}); charged an estimate of ${usage.inputTokens} input and ${usage.outputTokens} output tokens from its size`,
      );
      record(usage);
    },
  };
}
