import type http from "node:http";

/** Answers with an OpenAI-style error body, as the Responses API does. */
export function sendApiError(options: {
  res: http.ServerResponse;
  status: number;
  message: string;
  type?: string;
}): void {
  const text = JSON.stringify({
    error: { message: options.message, type: options.type ?? "mock_error", code: null, param: null },
  });
  options.res.writeHead(options.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  options.res.end(text);
}
