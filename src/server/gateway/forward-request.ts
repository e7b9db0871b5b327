import type http from "node:http";
import type { TokenUsage } from "../agents/token-usage";
import { upstreamRequestHeaders } from "./gateway-headers";
import { sendGatewayError } from "./gateway-error";
import { readRequestBody } from "./request-body";
import { checkResponsesBody, isRefusal } from "./request-policy";
import type { RunRecord, RunTokens } from "./run-tokens";
import { createRunUsageMeter } from "./run-usage-meter";
import type { UpstreamClient } from "./upstream-client";
import { relayUpstream } from "./upstream-relay";

/** What every forwarded request of one gateway shares. */
export interface ForwardContext {
  client: UpstreamClient;
  /** The upstream base URL's path ("" for a bare host), prefixed to the forwarded path. */
  upstreamPath: string;
  upstreamHost: string;
  runs: RunTokens;
  onUsage?: (event: { runId: string; usage: TokenUsage; total: TokenUsage }) => void;
  onBudgetExceeded?: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  log: (line: string) => void;
  redact: (text: string) => string;
}

/**
 * Forwards an admitted request: its headers with the real key instead of the run token, its body once
 * read and approved by the run's policy (a Responses request; other routes forward no body), to the
 * upstream; the answer is relayed back and, when it is an event stream, metered for the run.
 */
export function forwardRequest(options: {
  context: ForwardContext;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  run: RunRecord;
  apiKey: string;
  route: { subPath: string; body: "responses" | "none" };
}): void {
  const { context, req, res, run } = options;
  const search = new URL(req.url ?? "/", "http://gateway").search;
  const headers = upstreamRequestHeaders({ headers: req.headers, apiKey: options.apiKey });
  const path = `${context.upstreamPath}${options.route.subPath}${search}`;
  const createMeter = () =>
    createRunUsageMeter({
      run,
      runs: context.runs,
      onUsage: context.onUsage,
      onBudgetExceeded: context.onBudgetExceeded,
      log: context.log,
      redact: context.redact,
    });
  readRequestBody({
    req,
    res,
    onBody: (received) => {
      const body =
        options.route.body === "responses"
          ? checkResponsesBody({ body: received, policy: run.policy })
          : Buffer.alloc(0);
      if (isRefusal(body)) {
        context.log(`model gateway: refused a request of run ${run.runId}: ${body.message}`);
        run.lastUpstreamError = `refused a request: ${body.message}`;
        sendGatewayError({ res, ...body });
        return;
      }
      relayUpstream({
        req,
        res,
        run,
        client: context.client,
        request: { method: req.method ?? "GET", path, headers, body },
        upstreamHost: context.upstreamHost,
        createMeter,
        redact: context.redact,
        log: context.log,
      });
    },
  });
}
