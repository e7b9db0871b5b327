import type http from "node:http";
import { errorBody } from "./apis/api-errors";
import type { GatewayApi } from "./apis/gateway-api";

/**
 * Answers with an error body in the request's API's shape (OpenAI's `{ error: { message, type, code,
 * param } }` unless `api` says otherwise: apis/api-errors.ts), so the agent shows the gateway's reason;
 * a response whose head already left is cut instead.
 */
export function sendGatewayError(options: {
  res: http.ServerResponse;
  status: number;
  type: string;
  message: string;
  headers?: http.OutgoingHttpHeaders;
  /** The API the request spoke (default Responses). */
  api?: GatewayApi;
}): void {
  const { res, status, type, message } = options;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = errorBody({ api: options.api ?? "responses", status, type, message });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...options.headers,
  });
  res.end(body);
}

/** The message of an upstream error body (JSON or not), short enough to keep as a run's last error. */
export function upstreamErrorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === "string") return message.slice(0, 500);
  } catch {
    // not JSON
  }
  return body.slice(0, 200).trim() || "(empty body)";
}
