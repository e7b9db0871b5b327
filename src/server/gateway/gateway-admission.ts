import type http from "node:http";
import { totalTokens } from "../agents/token-usage";
import { sendGatewayError } from "./gateway-error";
import type { RunRecord } from "./run-tokens";

/**
 * The model gateway's checks before a request goes upstream, in the order they run: the run token,
 * the path, the run's token budget. Each answers the refusal itself and returns null (or false).
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

/** The path under `/v1` to forward, or null (answered 404) when it is not one the gateway forwards. */
export function allowedSubPath(options: {
  pathname: string;
  res: http.ServerResponse;
  allowed: string[];
}): string | null {
  const { pathname, allowed } = options;
  const subPath = pathname.startsWith("/v1/") ? pathname.slice("/v1".length) : null;
  // Encoded dots, slashes and backslashes could be decoded into other paths upstream: not forwarded.
  const encodedSeparator = /%2e|%2f|%5c/i.test(pathname);
  if (
    subPath === null ||
    encodedSeparator ||
    !allowed.some((prefix) => subPath === prefix || subPath.startsWith(`${prefix}/`))
  ) {
    sendGatewayError({
      res: options.res,
      status: 404,
      type: "not_found",
      message: `The model gateway forwards only ${allowed.map((p) => `/v1${p}`).join(" and ")}, not ${pathname}.`,
    });
    return null;
  }
  return subPath;
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
