import type http from "node:http";

/**
 * Answers with an OpenAI-style error body (`{ error: { message, type, code, param } }`), so Codex
 * shows the gateway's reason; a response whose head already left is cut instead.
 */
export function sendGatewayError(options: {
  res: http.ServerResponse;
  status: number;
  type: string;
  message: string;
  headers?: http.OutgoingHttpHeaders;
}): void {
  const { res, status, type, message } = options;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message, type, code: type, param: null } });
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
