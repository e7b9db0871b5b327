import net from "node:net";
import tls from "node:tls";
import { ChunkedBodyError, createChunkedBodyReader } from "./chunked-body";

/**
 * The model gateway's HTTP/1.1 client for its one upstream. It is small on purpose: requests carry a
 * buffered body (so always a content-length), responses are read straight off the socket, and a
 * chunked body reaches the gateway still framed, so it can pass the upstream's bytes to the client
 * without decoding and re-encoding every chunk (the payload is decoded alongside, for metering).
 * Connections are kept alive and reused; a reused connection that the server had already closed is
 * retried once on a fresh one, before any response byte arrived. A plain TCP connection reads into
 * one reusable buffer (Node's `onread`), replaced only when a handler keeps a chunk: streaming a
 * megabyte allocates nothing per read, so no garbage collection is needed to free read buffers.
 */
export interface UpstreamResponseHead {
  status: number;
  /** Header lines as received (names lower-cased), in order. */
  headers: [string, string][];
  framing: "chunked" | "length" | "close" | "none";
}

export interface UpstreamHandlers {
  onHead(head: UpstreamResponseHead): void;
  /**
   * What one read brought of the body, as received: still chunk-framed for a chunked body (without
   * its last chunk), else the payload; `last` when the body ends with it. The memory is reused for the
   * next read unless the handler returns true ("I still reference it", e.g. a socket write that is
   * queued rather than done).
   */
  onRaw(parts: Buffer[], last: boolean): boolean | void;
  /** The decoded body; the same rule about keeping chunks applies. */
  onPayload(chunk: Buffer): boolean | void;
  onEnd(): void;
  onError(error: Error): void;
}

export interface UpstreamExchange {
  pause(): void;
  resume(): void;
  /** Drops the connection (the server sees the request aborted). No handler is called afterwards. */
  abort(): void;
}

export interface UpstreamRequest {
  method: string;
  /** Path and query, starting with "/". */
  path: string;
  /** Header lines to send; host, content-length and connection are set here. */
  headers: [string, string][];
  body: Buffer;
}

const MAX_HEAD = 64 * 1024;
const MAX_IDLE = 32;
const IDLE_MS = 4000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;

// Large enough to take what a fast upstream has queued in one read: measured against 64 KiB, the
// gateway then costs no more than a raw TCP relay (docs/benchmarks.md). One buffer per connection.
const READ_SIZE = 256 * 1024;

class UpstreamProtocolError extends Error {}

interface Connection {
  socket: net.Socket;
  /** The exchange reading this connection; null while it is idle in the pool. */
  onChunk: ((chunk: Buffer) => void) | null;
  /** Plain TCP only: the memory reads go into. */
  readBuffer: Buffer;
  /** A handler kept the last chunk: the next read gets fresh memory. */
  chunkKept: boolean;
}

function parseHead(text: string, method: string): (UpstreamResponseHead & { keepAlive: boolean }) | null {
  const lines = text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0] ?? "");
  if (!status)
    throw new UpstreamProtocolError(
      `the upstream answered with something other than HTTP/1.x (${JSON.stringify((lines[0] ?? "").slice(0, 40))})`,
    );
  const code = Number(status[2]);
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name))
      throw new UpstreamProtocolError(
        `the upstream sent a malformed header line (${JSON.stringify(line.slice(0, 40))})`,
      );
    headers.push([name.toLowerCase(), line.slice(colon + 1).trim()]);
  }
  if (code >= 100 && code < 200) {
    if (code === 101) throw new UpstreamProtocolError("the upstream tried to switch protocols");
    return null; // an interim response: the real one follows
  }
  const values = (name: string) => headers.filter(([n]) => n === name).map(([, v]) => v);
  const connection = values("connection").join(",").toLowerCase();
  const keepAlive = status[1] === "1" && !/(^|,)\s*close\s*(,|$)/.test(connection);
  const transferEncoding = values("transfer-encoding");
  const contentLength = values("content-length");
  let framing: UpstreamResponseHead["framing"];
  if (method === "HEAD" || code === 204 || code === 304) framing = "none";
  else if (transferEncoding.length > 0) {
    if (transferEncoding.join(",").trim().toLowerCase() !== "chunked")
      throw new UpstreamProtocolError(
        `the upstream used a transfer encoding the gateway does not relay (${transferEncoding.join(", ")})`,
      );
    framing = "chunked";
  } else if (contentLength.length > 0) {
    if (!contentLength.every((v) => /^\d{1,15}$/.test(v) && v === contentLength[0]))
      throw new UpstreamProtocolError("the upstream sent an invalid content-length");
    framing = Number(contentLength[0]) === 0 ? "none" : "length";
  } else framing = "close";
  return { status: code, headers, framing, keepAlive: keepAlive && framing !== "close" };
}

export function createUpstreamClient(options: { baseUrl: URL; tls?: tls.ConnectionOptions }) {
  const { baseUrl } = options;
  const secure = baseUrl.protocol === "https:";
  const host = baseUrl.hostname.replace(/^\[|\]$/g, "");
  const port = Number(baseUrl.port || (secure ? 443 : 80));
  const idle: Connection[] = [];
  let closed = false;

  function connect(): Connection {
    const conn: Connection = {
      socket: null as unknown as net.Socket,
      onChunk: null,
      readBuffer: Buffer.allocUnsafe(READ_SIZE),
      chunkKept: false,
    };
    const deliver = (chunk: Buffer) => {
      if (conn.onChunk) conn.onChunk(chunk);
      else conn.socket.destroy(); // bytes on an idle connection: it cannot be reused
    };
    if (secure) {
      conn.socket = tls.connect({
        host,
        port,
        servername: net.isIP(host) ? undefined : host,
        ALPNProtocols: ["http/1.1"],
        ...options.tls,
      });
      conn.socket.on("data", deliver);
    } else {
      conn.socket = net.connect({
        host,
        port,
        onread: {
          // called after every read for the next one: the same buffer unless a handler kept the last chunk
          buffer: () => {
            if (conn.chunkKept) {
              conn.readBuffer = Buffer.allocUnsafe(READ_SIZE);
              conn.chunkKept = false;
            }
            return conn.readBuffer;
          },
          callback: (length, buffer) => {
            deliver((buffer as Buffer).subarray(0, length));
            return true; // false would pause the socket
          },
        },
      });
    }
    conn.socket.setNoDelay(true);
    return conn;
  }

  function park(conn: Connection): void {
    const { socket } = conn;
    conn.onChunk = null;
    if (closed || idle.length >= MAX_IDLE || socket.destroyed) return void socket.destroy();
    const drop = () => {
      const at = idle.indexOf(conn);
      if (at !== -1) idle.splice(at, 1);
      socket.destroy();
    };
    socket.once("close", drop).once("error", drop).once("timeout", drop);
    socket.setTimeout(IDLE_MS);
    socket.unref();
    idle.push(conn);
  }

  function takeIdle(): Connection | null {
    const conn = idle.pop();
    if (!conn) return null;
    conn.socket.removeAllListeners("close").removeAllListeners("error").removeAllListeners("timeout");
    conn.socket.setTimeout(0);
    conn.socket.ref();
    return conn;
  }

  function request(req: UpstreamRequest, handlers: UpstreamHandlers): UpstreamExchange {
    let conn!: Connection;
    let reused = false;
    let finished = false; // ended, failed or aborted: no more handler calls
    let received = 0;
    let head: (UpstreamResponseHead & { keepAlive: boolean }) | null = null;
    let headParts: Buffer[] = [];
    let bodyLeft = 0;
    let paused = false;
    const reader = createChunkedBodyReader((payload) => {
      if (handlers.onPayload(payload) === true) conn.chunkKept = true;
    });

    const finish = (error: Error | null, reusable: boolean) => {
      if (finished) return;
      finished = true;
      conn.onChunk = null;
      conn.socket.off("end", onEnd).off("close", onClose).off("error", onSocketError);
      if (reusable) {
        if (paused) conn.socket.resume();
        park(conn);
      } else conn.socket.destroy();
      if (error) handlers.onError(error);
      else handlers.onEnd();
    };

    const fail = (error: Error) => finish(error, false);

    function onBody(chunk: Buffer): void {
      if (!head) return;
      if (head.framing === "chunked") {
        const step = reader.push(chunk);
        if ((step.forward.length > 0 || step.done) && handlers.onRaw(step.forward, step.done) === true)
          conn.chunkKept = true;
        if (step.done) finish(null, head.keepAlive && step.leftover === 0);
      } else if (head.framing === "length") {
        const part = chunk.length > bodyLeft ? chunk.subarray(0, bodyLeft) : chunk;
        bodyLeft -= part.length;
        if (handlers.onPayload(part) === true) conn.chunkKept = true;
        if (handlers.onRaw([part], bodyLeft === 0) === true) conn.chunkKept = true;
        if (bodyLeft === 0) finish(null, head.keepAlive && part.length === chunk.length);
      } else if (head.framing === "close") {
        if (handlers.onPayload(chunk) === true) conn.chunkKept = true;
        if (handlers.onRaw([chunk], false) === true) conn.chunkKept = true;
      }
    }

    function onData(chunk: Buffer): void {
      received += chunk.length;
      try {
        if (head) return onBody(chunk);
        headParts.push(Buffer.from(chunk)); // a copy: the read buffer is reused
        const all = headParts.length === 1 ? chunk : Buffer.concat(headParts);
        headParts = [all];
        let start = 0;
        for (;;) {
          const end = all.indexOf("\r\n\r\n", start, "latin1");
          if (end === -1) {
            if (all.length - start > MAX_HEAD)
              throw new UpstreamProtocolError("the upstream's response head is too large");
            headParts = [all.subarray(start)];
            return;
          }
          const parsed = parseHead(all.toString("latin1", start, end), req.method);
          start = end + 4;
          if (!parsed) continue; // 1xx
          head = parsed;
          headParts = [];
          bodyLeft = parsed.framing === "length" ? Number(parsed.headers.find(([n]) => n === "content-length")![1]) : 0;
          handlers.onHead({ status: parsed.status, headers: parsed.headers, framing: parsed.framing });
          if (finished) return;
          if (parsed.framing === "none") return finish(null, parsed.keepAlive && start === all.length);
          if (start < all.length) onBody(all.subarray(start));
          return;
        }
      } catch (error) {
        fail(
          error instanceof ChunkedBodyError
            ? new UpstreamProtocolError(`the upstream sent a malformed chunked body (${error.message})`)
            : (error as Error),
        );
      }
    }

    function onEnd(): void {
      if (head?.framing === "close") finish(null, false);
    }

    function onClose(): void {
      if (finished) return;
      if (reused && received === 0) return void retry();
      if (head?.framing === "close") return finish(null, false);
      fail(
        new Error(
          head
            ? "the upstream closed the connection before the response was complete"
            : "the upstream closed the connection without answering",
        ),
      );
    }

    function onSocketError(error: Error): void {
      if (finished) return;
      if (reused && received === 0) return void retry();
      fail(error);
    }

    function send(): void {
      const { socket } = conn;
      conn.onChunk = onData;
      socket.on("end", onEnd).on("close", onClose).on("error", onSocketError);
      let text = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${baseUrl.host}\r\n`;
      for (const [name, value] of req.headers) text += `${name}: ${value}\r\n`;
      if (req.body.length > 0 || req.method === "POST" || req.method === "PUT" || req.method === "PATCH")
        text += `content-length: ${req.body.length}\r\n`;
      text += "connection: keep-alive\r\n\r\n";
      socket.cork();
      socket.write(text, "latin1");
      if (req.body.length > 0) socket.write(req.body);
      socket.uncork();
    }

    function retry(): void {
      conn.onChunk = null;
      conn.socket.off("end", onEnd).off("close", onClose).off("error", onSocketError);
      conn.socket.destroy();
      reused = false;
      conn = connect();
      send();
    }

    const pooled = takeIdle();
    reused = pooled !== null;
    conn = pooled ?? connect();
    send();

    return {
      pause() {
        if (finished) return;
        paused = true;
        conn.socket.pause();
      },
      resume() {
        if (finished) return;
        paused = false;
        conn.socket.resume();
      },
      abort() {
        if (finished) return;
        finished = true;
        conn.onChunk = null;
        conn.socket.destroy();
      },
    };
  }

  return {
    request,
    close(): void {
      closed = true;
      for (const conn of idle.splice(0)) conn.socket.destroy();
    },
  };
}
export type UpstreamClient = ReturnType<typeof createUpstreamClient>;
