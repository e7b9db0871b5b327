import type tls from "node:tls";
import { createConnectionPool } from "./upstream-connection";
import {
  startUpstreamExchange,
  type UpstreamExchange,
  type UpstreamHandlers,
  type UpstreamRequest,
} from "./upstream-exchange";

/**
 * The model gateway's HTTP/1.1 client for its one upstream. It is small on purpose: requests carry a
 * buffered body (so always a content-length), responses are read straight off the socket, and a
 * chunked body reaches the gateway still framed, so it can pass the upstream's bytes to the client
 * without decoding and re-encoding every chunk (the payload is decoded alongside, for metering).
 * Connections are kept alive and reused (upstream-connection.ts); one exchange is one request and its
 * response (upstream-exchange.ts).
 */
export function createUpstreamClient(options: { baseUrl: URL; tls?: tls.ConnectionOptions }) {
  const pool = createConnectionPool(options);
  const host = options.baseUrl.host;
  return {
    request(exchange: { request: UpstreamRequest; handlers: UpstreamHandlers }): UpstreamExchange {
      return startUpstreamExchange({ pool, host, ...exchange });
    },
    close(): void {
      pool.close();
    },
  };
}
export type UpstreamClient = ReturnType<typeof createUpstreamClient>;
