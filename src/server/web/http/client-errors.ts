import http from "node:http";
import type { Duplex } from "node:stream";

/**
 * Requests Node's HTTP parser refuses before any handler runs (headers over its limit, a malformed
 * request) get an answer that says why, instead of Node's default bare status with an empty body.
 */
function answerFor(error: NodeJS.ErrnoException): { status: number; reason: string; body: string } {
  if (error.code === "HPE_HEADER_OVERFLOW")
    return {
      status: 431,
      reason: "Request Header Fields Too Large",
      body: `The request's headers (its URL, cookies and other headers together) are over this server's limit of ${Math.round(http.maxHeaderSize / 1024)} KiB. Shorten the URL (a GET carries its input in the URL: send a large input as a POST body instead), or clear this site's cookies, then try again.\n`,
    };
  return { status: 400, reason: "Bad Request", body: "The server could not read this request (malformed HTTP).\n" };
}

/** Answers the parser's refusals on `server` with a status and a plain-text body. */
export function answerClientErrors(server: http.Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // nobody to answer (reset, closed), or a response already under way on this connection: Node's way, close it
    const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, reason, body } = answerFor(error);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
