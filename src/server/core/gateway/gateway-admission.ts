import type http from "node:http";
import { totalTokens } from "../../../shared/token-usage";
import { HARNESS_INFO, PROVIDER_INFO } from "../../../shared/harness-kinds";
import { clip } from "./echo-limit";
import { sendGatewayError } from "./gateway-error";
import { isRefusal } from "./apis/body-policy";
import { API_PROVIDER, type GatewayApi, type GatewayRoute } from "./apis/gateway-api";
import { describeAllRoutes, matchGatewayRoute } from "./apis/gateway-routes";
import { runTokenOf } from "./apis/provider-auth";
import { freshRateState, takeRequest, type RateLimit } from "./run-rate-limit";
import type { RunRecord } from "./run-tokens";

/**
 * The model gateway's checks before a request goes upstream, in the order they run: the run token,
 * the method and path, the body's encoding, the run's token budget and its request rate. Each answers
 * the refusal itself, in the shape of the API the path belongs to (`api`), and returns null (or false).
 */
export function authenticateRun(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  api: GatewayApi;
  lookup: (token: string) => RunRecord | null;
}): RunRecord | null {
  const { res, api } = options;
  const token = runTokenOf(options.req, options.url);
  if (!token) {
    sendGatewayError({
      res,
      api,
      status: 401,
      type: "missing_run_token",
      message:
        "The model gateway needs `Authorization: Bearer <run token>` (or the token as `x-api-key` or `x-goog-api-key`); this request has none. Each run gets its token from invariant-web.",
    });
    return null;
  }
  const run = options.lookup(token);
  if (!run) {
    sendGatewayError({
      res,
      api,
      status: 401,
      type: "invalid_run_token",
      message: "This run token is not valid: it is unknown, or its run has ended and the token was revoked.",
    });
    return null;
  }
  return run;
}

/**
 * The route a request takes (its API, the path to forward and what its body is), or null when it was
 * refused: 404 for a path with an encoded `.`, `/` or `\\` (it could be decoded into another path
 * upstream), 404 or 405 for a method and path no API of the gateway forwards (apis/gateway-routes.ts).
 */
export function admitRoute(options: {
  pathname: string;
  method: string;
  api: GatewayApi;
  res: http.ServerResponse;
}): GatewayRoute | null {
  const { pathname, res, api } = options;
  if (/%2e|%2f|%5c/i.test(pathname)) {
    sendGatewayError({
      res,
      api,
      status: 404,
      type: "not_found",
      message: `The model gateway forwards only ${describeAllRoutes()}, not ${clip(pathname)}.`,
    });
    return null;
  }
  const route = matchGatewayRoute({ method: options.method, pathname });
  if (isRefusal(route)) {
    sendGatewayError({ res, api, ...route });
    return null;
  }
  return route;
}

/** "Claude Code's Anthropic Messages API": the agent that speaks an API, and the API. */
function describeApi(api: GatewayApi): string {
  const provider = API_PROVIDER[api];
  const harness = Object.values(HARNESS_INFO).find((info) => info.provider === provider);
  const name = `${PROVIDER_INFO[provider].label} ${PROVIDER_INFO[provider].api}`;
  return harness ? `${harness.label}'s ${name}` : name;
}

/**
 * True (answered 403) when the run's policy pins its harness's API and this route is another's: a
 * Claude Code run's token must not buy Responses or Gemini turns (another provider's key, other prices
 * than the configuration ran on). The path is echoed without its query, where a `key=` token may be.
 */
export function refuseOtherApi(options: {
  run: RunRecord;
  route: GatewayRoute;
  req: http.IncomingMessage;
  url: URL;
  res: http.ServerResponse;
}): boolean {
  const { run, route } = options;
  const apis = run.policy.apis;
  if (!apis || apis.includes(route.api)) return false;
  const called = `${clip(options.req.method ?? "GET", 20)} ${clip(options.url.pathname)}`;
  const message = `This run's token is for ${apis.map(describeApi).join(" or ")}; it cannot call ${called}.`;
  run.lastUpstreamError = `refused a request: ${message}`;
  sendGatewayError({ res: options.res, api: route.api, status: 403, type: "api_not_allowed", message });
  return true;
}

/** True (answered 415) when the body is compressed: the policy must read what it forwards. */
export function refuseEncodedBody(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  api: GatewayApi;
}): boolean {
  const encoding = String(options.req.headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  if (encoding === "identity" || encoding === "") return false;
  sendGatewayError({
    res: options.res,
    api: options.api,
    status: 415,
    type: "unsupported_content_encoding",
    message: `The model gateway reads each request before forwarding it and does not accept a body with Content-Encoding "${encoding.slice(0, 40)}"; send it uncompressed.`,
  });
  return true;
}

/** True (answered 429 with Retry-After) when the run sends requests faster than its rate limit. */
export function refuseOverRate(options: {
  run: RunRecord;
  res: http.ServerResponse;
  api: GatewayApi;
  limit: RateLimit;
  now: number;
}): boolean {
  const { run, limit, now } = options;
  run.rate ??= freshRateState(limit, now);
  const refused = takeRequest({ limit, state: run.rate, inFlight: run.active, now });
  if (!refused) return false;
  run.lastUpstreamError = `refused a request: ${refused.message}`;
  sendGatewayError({
    res: options.res,
    api: options.api,
    status: 429,
    type: "rate_limited",
    message: `${refused.message} Try again in ${refused.retryAfterSeconds} s.`,
    headers: { "retry-after": String(refused.retryAfterSeconds) },
  });
  return true;
}

/** True (answered 429) when the run has used up its token budget. */
export function refuseOverBudget(options: { run: RunRecord; res: http.ServerResponse; api: GatewayApi }): boolean {
  const { run } = options;
  if (!run.budgetExceeded) return false;
  sendGatewayError({
    res: options.res,
    api: options.api,
    status: 429,
    type: "token_budget_exceeded",
    message: `Run ${run.runId} has used ${totalTokens(run.usage)} tokens, reaching its budget of ${run.budgetTokens ?? 0}; the model gateway accepts no more requests for it.`,
    headers: { "retry-after": "86400" },
  });
  return true;
}
