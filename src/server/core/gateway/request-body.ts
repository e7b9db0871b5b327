import type http from "node:http";
import { sendGatewayError } from "./gateway-error";

const REQUEST_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Buffers a client request's body (bounded) for the upstream. With a Content-Length the body is
 * handed on as soon as its last byte is here, not a tick later at "end"; an oversized one is refused.
 */
export function readRequestBody(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  onBody: (body: Buffer) => void;
}): void {
  const { req, res } = options;
  const body: Buffer[] = [];
  let size = 0;
  let sent = false;
  const declared = /^\d{1,15}$/.test(req.headers["content-length"] ?? "")
    ? Number(req.headers["content-length"])
    : null;
  const sendOnce = () => {
    if (sent || res.destroyed) return;
    sent = true;
    options.onBody(Buffer.concat(body));
  };
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= REQUEST_BODY_LIMIT) body.push(chunk);
    if (size === declared && size <= REQUEST_BODY_LIMIT) sendOnce();
  });
  req.on("error", () => res.destroy());
  req.on("end", () => {
    if (size > REQUEST_BODY_LIMIT) {
      sendGatewayError({
        res,
        status: 413,
        type: "request_too_large",
        message: `The model gateway forwards request bodies up to ${REQUEST_BODY_LIMIT / 1024 / 1024} MiB; this one has ${size} bytes.`,
        headers: { connection: "close" },
      });
      return;
    }
    sendOnce();
  });
}
