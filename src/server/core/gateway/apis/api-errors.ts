import type { GatewayApi } from "./gateway-api";

/**
 * The gateway's own error answers in each API's shape, so the agent CLI shows the gateway's reason as
 * it would the provider's: OpenAI `{ error: { message, type, code, param } }`, Anthropic
 * `{ type: "error", error: { type, message } }`, Gemini `{ error: { code, message, status, details } }`.
 * The gateway's specific reason (e.g. `model_not_allowed`) is kept in each: OpenAI's `type`/`code`,
 * Anthropic's `error.code` beside its standard type, Gemini's ErrorInfo `reason`.
 */
export function errorBody(options: { api: GatewayApi; status: number; type: string; message: string }): string {
  const { status, type, message } = options;
  if (options.api === "anthropic")
    return JSON.stringify({ type: "error", error: { type: anthropicErrorType(status), message, code: type } });
  if (options.api === "gemini")
    return JSON.stringify({
      error: {
        code: status,
        message,
        status: googleStatus(status),
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: type, domain: "invariant-web" }],
      },
    });
  return JSON.stringify({ error: { message, type, code: type, param: null } });
}

/** Anthropic's error types by HTTP status (docs.anthropic.com "Errors"). */
function anthropicErrorType(status: number): string {
  const byStatus: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return byStatus[status] ?? (status < 500 ? "invalid_request_error" : "api_error");
}

/** google.rpc status names by HTTP status, as the Gemini API answers them. */
function googleStatus(status: number): string {
  const byStatus: Record<number, string> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
  };
  return byStatus[status] ?? (status < 500 ? "FAILED_PRECONDITION" : "INTERNAL");
}
