import { ChunkedBodyError, createChunkedBodyReader, type ChunkedBodyReader } from "./chunked-body";
import type { Connection, ConnectionPool } from "./upstream-connection";
import {
  parseResponseHead,
  UpstreamProtocolError,
  type ParsedResponseHead,
  type UpstreamResponseHead,
} from "./upstream-response-head";

/**
 * One request and its response on an upstream connection: send the request, read the head off the
 * socket, then pass the body on read by read (still framed when chunked, see UpstreamHandlers). A
 * reused connection that the server had already closed is retried once on a fresh one, before any
 * response byte arrived.
 */
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

export interface ExchangeOptions {
  pool: ConnectionPool;
  /** The upstream's `host` header. */
  host: string;
  request: UpstreamRequest;
  handlers: UpstreamHandlers;
}

const MAX_HEAD = 64 * 1024;

export function startUpstreamExchange(options: ExchangeOptions): UpstreamExchange {
  const exchange = new Exchange(options);
  exchange.start();
  return exchange;
}

class Exchange implements UpstreamExchange {
  private conn!: Connection;
  private reused = false;
  private finished = false; // ended, failed or aborted: no more handler calls
  private received = 0;
  private head: ParsedResponseHead | null = null;
  private headParts: Buffer[] = [];
  private bodyLeft = 0;
  private paused = false;
  private readonly options: ExchangeOptions;
  private readonly handlers: UpstreamHandlers;
  private readonly reader: ChunkedBodyReader;

  constructor(options: ExchangeOptions) {
    this.options = options;
    this.handlers = options.handlers;
    this.reader = createChunkedBodyReader((payload) => {
      if (this.handlers.onPayload(payload) === true) this.conn.chunkKept = true;
    });
  }

  start(): void {
    const pooled = this.options.pool.takeIdle();
    this.reused = pooled !== null;
    this.conn = pooled ?? this.options.pool.connect();
    this.send();
  }

  pause(): void {
    if (this.finished) return;
    this.paused = true;
    this.conn.socket.pause();
  }

  resume(): void {
    if (this.finished) return;
    this.paused = false;
    this.conn.socket.resume();
  }

  abort(): void {
    if (this.finished) return;
    this.finished = true;
    this.conn.onChunk = null;
    this.conn.socket.destroy();
  }

  private send(): void {
    const { conn } = this;
    const { request } = this.options;
    conn.onChunk = this.onData;
    conn.socket.on("end", this.onEnd).on("close", this.onClose).on("error", this.onSocketError);
    let text = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${this.options.host}\r\n`;
    for (const [name, value] of request.headers) text += `${name}: ${value}\r\n`;
    if (request.body.length > 0 || request.method === "POST" || request.method === "PUT" || request.method === "PATCH")
      text += `content-length: ${request.body.length}\r\n`;
    text += "connection: keep-alive\r\n\r\n";
    conn.socket.cork();
    conn.socket.write(text, "latin1");
    if (request.body.length > 0) conn.socket.write(request.body);
    conn.socket.uncork();
  }

  private retry(): void {
    this.conn.onChunk = null;
    this.conn.socket.off("end", this.onEnd).off("close", this.onClose).off("error", this.onSocketError);
    this.conn.socket.destroy();
    this.reused = false;
    this.conn = this.options.pool.connect();
    this.send();
  }

  /** Every read of the connection, head or body. */
  private readonly onData = (chunk: Buffer): void => {
    this.received += chunk.length;
    try {
      if (this.head) this.readBody(chunk);
      else this.readHead(chunk);
    } catch (error) {
      this.fail(
        error instanceof ChunkedBodyError
          ? new UpstreamProtocolError(`the upstream sent a malformed chunked body (${error.message})`)
          : (error as Error),
      );
    }
  };

  private readHead(chunk: Buffer): void {
    // Earlier reads of the head are held as copies (the read buffer is reused); this one is not yet.
    const all = this.headParts.length === 0 ? chunk : Buffer.concat([...this.headParts, chunk]);
    let start = 0;
    for (;;) {
      const end = all.indexOf("\r\n\r\n", start, "latin1");
      if (end === -1) {
        if (all.length - start > MAX_HEAD) throw new UpstreamProtocolError("the upstream's response head is too large");
        this.headParts = [Buffer.from(all.subarray(start))]; // a copy: the next read reuses the buffer
        return;
      }
      const parsed = parseResponseHead({
        text: all.toString("latin1", start, end),
        method: this.options.request.method,
      });
      start = end + 4;
      if (!parsed) continue; // 1xx
      this.startBody(parsed, all, start);
      return;
    }
  }

  /** The head is here: hand it on, then what came after it (from `start`) in the same read. */
  private startBody(head: ParsedResponseHead, all: Buffer, start: number): void {
    this.head = head;
    this.headParts = [];
    this.bodyLeft = head.framing === "length" ? Number(head.headers.find(([n]) => n === "content-length")![1]) : 0;
    this.handlers.onHead({ status: head.status, headers: head.headers, framing: head.framing });
    if (this.finished) return;
    if (head.framing === "none") return this.finish(null, head.keepAlive && start === all.length);
    if (start < all.length) this.readBody(all.subarray(start));
  }

  private readBody(chunk: Buffer): void {
    const { head, handlers } = this;
    if (!head) return;
    if (head.framing === "chunked") {
      const step = this.reader.push(chunk);
      if ((step.forward.length > 0 || step.done) && handlers.onRaw(step.forward, step.done) === true)
        this.conn.chunkKept = true;
      if (step.done) this.finish(null, head.keepAlive && step.leftover === 0);
    } else if (head.framing === "length") {
      const part = chunk.length > this.bodyLeft ? chunk.subarray(0, this.bodyLeft) : chunk;
      this.bodyLeft -= part.length;
      if (handlers.onPayload(part) === true) this.conn.chunkKept = true;
      if (handlers.onRaw([part], this.bodyLeft === 0) === true) this.conn.chunkKept = true;
      if (this.bodyLeft === 0) this.finish(null, head.keepAlive && part.length === chunk.length);
    } else if (head.framing === "close") {
      if (handlers.onPayload(chunk) === true) this.conn.chunkKept = true;
      if (handlers.onRaw([chunk], false) === true) this.conn.chunkKept = true;
    }
  }

  private finish(error: Error | null, reusable: boolean): void {
    if (this.finished) return;
    this.finished = true;
    const { conn } = this;
    conn.onChunk = null;
    conn.socket.off("end", this.onEnd).off("close", this.onClose).off("error", this.onSocketError);
    if (reusable) {
      if (this.paused) conn.socket.resume();
      this.options.pool.park(conn);
    } else conn.socket.destroy();
    if (error) this.handlers.onError(error);
    else this.handlers.onEnd();
  }

  private fail(error: Error): void {
    this.finish(error, false);
  }

  private readonly onEnd = (): void => {
    if (this.head?.framing === "close") this.finish(null, false);
  };

  private readonly onClose = (): void => {
    if (this.finished) return;
    if (this.reused && this.received === 0) return void this.retry();
    if (this.head?.framing === "close") return this.finish(null, false);
    this.fail(
      new Error(
        this.head
          ? "the upstream closed the connection before the response was complete"
          : "the upstream closed the connection without answering",
      ),
    );
  };

  private readonly onSocketError = (error: Error): void => {
    if (this.finished) return;
    if (this.reused && this.received === 0) return void this.retry();
    this.fail(error);
  };
}
