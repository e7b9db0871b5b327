import type http from "node:http";
import { totalTokens } from "../../../shared/token-usage";
import { clip } from "./echo-limit";
import { sendGatewayError } from "./gateway-error";
import { describeRoutes, isRefusal, matchRoute } from "./request-policy";
import { freshRateState, takeRequest, type RateLimit } from "./run-rate-limit";
import type { RunRecord } from "./run-tokens";

/**
 * The model gateway's checks before a request goes upstream, in the order they run: the run token,
 * the method and path, the body's encoding, the run's token budget and its request rate. Each answers
 * the refusal itself and returns null (or false).
 */
export function authenticateRun(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  lookup: (token: string) => RunRecord | null;
}): RunRecord | null {
  const { res } = options;
  const header = options.req.headers.authorization;
  const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match?.[1]) {
    sendGatewayError({
      res,
      status: 401,
      type: "missing_run_token",
      message:
        "The model gateway needs `Authorization: Bearer <run token>`; this request has none. Each run gets its token from invariant-web.",
    });
    return null;
  }
  const run = options.lookup(match[1]);
  if (!run) {
    sendGatewayError({
      res,
      status: 401,
      type: "invalid_run_token",
      message: "This run token is not valid: it is unknown, or its run has ended and the token was revoked.",
    });
    return null;
  }
  return run;
}

/**
 * The route a request takes (its path under `/v1` and what its body is), or null when it was refused:
 * 404 for a path outside `/v1` or with an encoded `.`, `/` or `\\` (it could be decoded into another path
 * upstream), 404 or 405 for a method and path the gateway does not forward (request-policy.ts).
 */
export function admitRoute(options: {
  pathname: string;
  method: string;
  res: http.ServerResponse;
}): { subPath: string; body: "responses" | "none" } | null {
  const { pathname, res } = options;
  const subPath = pathname.startsWith("/v1/") ? pathname.slice("/v1".length) : null;
  if (subPath === null || /%2e|%2f|%5c/i.test(pathname)) {
    sendGatewayError({
      res,
      status: 404,
      type: "not_found",
      message: `The model gateway forwards only ${describeRoutes()}, not ${clip(pathname)}.`,
    });
    return null;
  }
  const route = matchRoute({ method: options.method, subPath });
  if (isRefusal(route)) {
    sendGatewayError({ res, ...route });
    return null;
  }
  return { subPath, body: route.body };
}

/** True (answered 415) when the body is compressed: the policy must read what it forwards. */
export function refuseEncodedBody(options: { req: http.IncomingMessage; res: http.ServerResponse }): boolean {
  const encoding = String(options.req.headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  if (encoding === "identity" || encoding === "") return false;
  sendGatewayError({
    res: options.res,
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
    status: 429,
    type: "rate_limited",
    message: `${refused.message} Try again in ${refused.retryAfterSeconds} s.`,
    headers: { "retry-after": String(refused.retryAfterSeconds) },
  });
  return true;
}

/** True (answered 429) when the run has used up its token budget. */
export function refuseOverBudget(options: { run: RunRecord; res: http.ServerResponse }): boolean {
  const { run } = options;
  if (!run.budgetExceeded) return false;
  sendGatewayError({
    res: options.res,
    status: 429,
    type: "token_budget_exceeded",
    message: `Run ${run.runId} has used ${totalTokens(run.usage)} tokens, reaching its budget of ${run.budgetTokens ?? 0}; the model gateway accepts no more requests for it.`,
    headers: { "retry-after": "86400" },
  });
  return true;
}
