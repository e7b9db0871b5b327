import type http from "node:http";
import type { TokenUsage } from "../../../shared/token-usage";
import { upstreamRequestHeaders } from "./gateway-headers";
import { isChatgptCredential, type GatewayCredential } from "./gateway-credentials";
import { sendGatewayError } from "./gateway-error";
import { readRequestBody } from "./request-body";
import { isRefusal } from "./apis/body-policy";
import type { GatewayRoute } from "./apis/gateway-api";
import { checkRouteBody } from "./apis/gateway-routes";
import { apiHeaders, credentialHeaders, forwardedSearch } from "./apis/provider-auth";
import type { RunRecord, RunTokens } from "./run-tokens";
import { createRunMetering } from "./run-usage-meter";
import type { UpstreamClient } from "./upstream-client";
import type { UpstreamRequest } from "./upstream-exchange";
import { relayUpstream } from "./upstream-relay";

/** What every forwarded request of one gateway shares. */
export interface ForwardContext {
  runs: RunTokens;
  onUsage?: (event: { runId: string; usage: TokenUsage; total: TokenUsage }) => void;
  onBudgetExceeded?: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  log: (line: string) => void;
  redact: (text: string) => string;
}

/** One upstream the gateway forwards to: the API for a key, the ChatGPT endpoint, or the scripted model. */
export interface UpstreamTarget {
  client: UpstreamClient;
  /** The base URL's path ("" for a bare host), prefixed to the forwarded path. */
  path: string;
  host: string;
}

/** How to get a new credential after the upstream's 401 (a ChatGPT sign-in whose token expired); null: none. */
export type RecoverCredential = (used: GatewayCredential) => Promise<GatewayCredential | null>;

/**
 * Forwards an admitted request: its headers with the real credential instead of the run token (in the
 * API's own header), its body once read and approved by the run's policy for its API (GET /v1/models
 * forwards none), to the upstream; the answer to a model turn is metered for the run whatever its shape
 * (an event stream as it passes, a JSON body before it is relayed) or refused when it cannot be; counting
 * tokens and listing models are not metered. A ChatGPT sign-in's 401 is answered by one retry with a
 * refreshed token (`recover`).
 */
export function forwardRequest(options: {
  context: ForwardContext;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  run: RunRecord;
  target: UpstreamTarget;
  credential: GatewayCredential | null;
  recover?: RecoverCredential;
  route: GatewayRoute;
}): void {
  const { context, req, res, run, target, credential, route } = options;
  const search = forwardedSearch(new URL(req.url ?? "/", "http://gateway"));
  const path = `${target.path}${route.path}${search}`;
  // a model turn spends tokens, whatever shape its answer takes; counting tokens and the model list spend none
  const metering = route.metered
    ? createRunMetering({
        api: route.api,
        run,
        runs: context.runs,
        onUsage: context.onUsage,
        onBudgetExceeded: context.onBudgetExceeded,
        log: context.log,
        redact: context.redact,
      })
    : null;
  readRequestBody({
    req,
    res,
    onBody: (received) => {
      const body = checkRouteBody({ route, body: received, policy: run.policy });
      if (isRefusal(body)) {
        context.log(`model gateway: refused a request of run ${run.runId}: ${body.message}`);
        run.lastUpstreamError = `refused a request: ${body.message}`;
        sendGatewayError({ res, ...body, api: route.api });
        return;
      }
      const requestWith = (using: GatewayCredential | null): UpstreamRequest => ({
        method: req.method ?? "GET",
        path,
        headers: upstreamRequestHeaders({
          headers: req.headers,
          auth: [...credentialHeaders(route.api, using), ...apiHeaders(route.api, req.headers)],
        }),
        body,
      });
      const recover = options.recover;
      relayUpstream({
        req,
        res,
        run,
        client: target.client,
        request: requestWith(credential),
        upstreamHost: target.host,
        api: route.api,
        metering,
        redact: context.redact,
        log: context.log,
        ...(recover && credential && isChatgptCredential(credential)
          ? {
              retryUnauthorized: async () => {
                const next = await recover(credential);
                return next ? requestWith(next) : null;
              },
            }
          : {}),
      });
    },
  });
}
