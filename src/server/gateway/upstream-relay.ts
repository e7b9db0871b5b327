import type http from "node:http";
import type net from "node:net";
import { clientResponseHeaders, isEventStream } from "./gateway-headers";
import { sendGatewayError, upstreamErrorMessage } from "./gateway-error";
import type { RunRecord } from "./run-tokens";
import type { SseUsageMeter } from "./sse-usage-meter";
import type { UpstreamClient } from "./upstream-client";
import type { UpstreamExchange, UpstreamHandlers, UpstreamRequest } from "./upstream-exchange";
import type { UpstreamResponseHead } from "./upstream-response-head";

const ERROR_BODY_LIMIT = 256 * 1024;

export interface UpstreamRelayOptions {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  run: RunRecord;
  client: UpstreamClient;
  request: UpstreamRequest;
  /** The upstream's host, for messages. */
  upstreamHost: string;
  /** A usage meter for the run, made when the answer is an event stream. */
  createMeter: () => SseUsageMeter;
  redact: (text: string) => string;
  log: (line: string) => void;
  /**
   * For a credential that can be renewed (a ChatGPT sign-in): on the upstream's first 401 its body is
   * dropped and the request is sent once more as this returns it (null, or a rejection: the 401 ends
   * the request with the reason).
   */
  retryUnauthorized?: () => Promise<UpstreamRequest | null>;
}

/**
 * Sends one buffered request upstream and relays the answer to the client: the head, then the body
 * read by read (backpressure and client aborts propagate both ways), metered when it is an event
 * stream; an error body is read whole (bounded), redacted and remembered for the run.
 */
export function relayUpstream(options: UpstreamRelayOptions): void {
  new UpstreamRelay(options).start();
}

/**
 * "raw": the upstream's chunk framing goes to the client socket as it is; "payload": the decoded body
 * goes through the ServerResponse; "error": an error body, read whole (bounded) and redacted.
 */
type RelayMode = "raw" | "payload" | "error" | "none" | "discard";

/** The upstream client calls these handlers as methods of the relay: no per-read closure or copy. */
class UpstreamRelay implements UpstreamHandlers {
  private mode: RelayMode = "none";
  private socket: net.Socket | null = null;
  private status = 502;
  private headers: http.OutgoingHttpHeaders = {};
  private errorChunks: Buffer[] = [];
  private errorSize = 0;
  private waitingForDrain = false;
  private finished = false;
  private meter: SseUsageMeter | null = null;
  private exchange!: UpstreamExchange;
  private retried = false;
  private readonly options: UpstreamRelayOptions;

  private readonly abort = (): void => {
    this.exchange.abort();
    this.options.res.destroy();
  };

  constructor(options: UpstreamRelayOptions) {
    this.options = options;
  }

  /** Opens the upstream request; a revoke or a client going away aborts it. */
  start(): void {
    const { res, run } = this.options;
    run.inFlight.add(this.abort);
    // A client that goes away aborts the upstream request (and with it the model's work).
    res.on("close", () => {
      if (!this.finished) this.exchange.abort();
      this.finished = true;
      run.inFlight.delete(this.abort);
    });
    this.exchange = this.options.client.request({ request: this.options.request, handlers: this });
  }

  onHead(head: UpstreamResponseHead): void {
    const { req, res } = this.options;
    this.status = head.status;
    this.headers = clientResponseHeaders(head.headers);
    if (this.status === 401 && this.options.retryUnauthorized && !this.retried) {
      this.mode = "discard";
      return;
    }
    if (this.status >= 400) {
      this.mode = "error";
      return;
    }
    if (isEventStream(head.headers)) this.meter = this.options.createMeter();
    if (res.destroyed || !res.socket) return this.abort();
    if (head.framing === "chunked" && req.httpVersionMinor >= 1) {
      this.mode = "raw";
      delete this.headers["content-length"];
      res.writeHead(this.status, { ...this.headers, "transfer-encoding": "chunked" });
      // The head leaves with the body bytes that came in the same read, in one write.
      const socket = res.socket;
      this.socket = socket;
      socket.cork();
      res.flushHeaders();
      process.nextTick(() => socket.uncork());
    } else {
      this.mode = "payload";
      if (head.framing !== "length") delete this.headers["content-length"];
      res.writeHead(this.status, this.headers);
    }
  }

  onRaw(parts: Buffer[], last: boolean): boolean {
    const { socket } = this;
    if (this.mode !== "raw" || socket === null) return false;
    // What one read brought goes out in one write; the last read also ends the response in it.
    socket.cork();
    let flowing = true;
    for (const part of parts) flowing = socket.write(part) && flowing;
    if (last) {
      this.meter?.end();
      this.options.res.end(); // uncorks
    } else socket.uncork();
    if (!flowing && !last) this.waitForDrain(socket);
    return socket.writableLength > 0; // queued: it still references the read buffer
  }

  onPayload(chunk: Buffer): boolean {
    this.meter?.push(chunk);
    if (this.mode === "payload") {
      if (!this.options.res.write(chunk)) this.waitForDrain(this.options.res);
      return true; // a ServerResponse may hold on to it
    }
    if (this.mode === "error") {
      if (this.errorSize < ERROR_BODY_LIMIT) this.errorChunks.push(Buffer.from(chunk));
      this.errorSize += chunk.length;
    }
    return false;
  }

  onEnd(): void {
    const { res } = this.options;
    if (res.writableEnded) return;
    if (this.mode === "discard") return this.retry();
    this.meter?.end();
    if (this.mode !== "error") return void res.end();
    this.sendErrorBody();
  }

  onError(error: Error): void {
    const { res, run, upstreamHost, log } = this.options;
    this.meter?.end();
    const message = this.options.redact(error.message);
    if (this.mode === "none" || this.mode === "error" || this.mode === "discard") {
      log(`model gateway: upstream ${upstreamHost} failed for run ${run.runId}: ${message}`);
      run.lastUpstreamError = `no answer (${message})`;
      sendGatewayError({
        res,
        status: 502,
        type: "upstream_unreachable",
        message: `The model gateway could not reach the upstream API at ${upstreamHost}: ${message}`,
      });
      return;
    }
    // The upstream dropping the connection mid-body (not our client going away) is the run's problem to report.
    if (!res.destroyed) run.lastUpstreamError = `the stream was cut before the response completed (${message})`;
    log(`model gateway: stream for run ${run.runId} ended early: ${message}`);
    res.destroy();
  }

  /** After a 401 whose body was dropped: the same request once more with a renewed credential. */
  private retry(): void {
    const { res, run, log } = this.options;
    this.retried = true;
    this.mode = "none";
    const fail = (message: string) => {
      log(`model gateway: run ${run.runId}: ${message}`);
      run.lastUpstreamError = message;
      sendGatewayError({ res, status: 401, type: "gateway_sign_in_expired", message });
    };
    this.options.retryUnauthorized!().then(
      (request) => {
        if (res.destroyed || this.finished) return;
        if (!request) return fail("The upstream refused the credential (HTTP 401).");
        this.exchange = this.options.client.request({ request, handlers: this });
      },
      (error: unknown) => fail(this.options.redact(error instanceof Error ? error.message : String(error))),
    );
  }

  /** Error bodies are small: read them (bounded), redact the key, remember the reason for the run. */
  private sendErrorBody(): void {
    const { res, run } = this.options;
    const text = this.options.redact(Buffer.concat(this.errorChunks).subarray(0, ERROR_BODY_LIMIT).toString("utf8"));
    this.errorChunks = [];
    run.lastUpstreamError = `HTTP ${this.status}: ${upstreamErrorMessage(text)}`;
    delete this.headers["content-encoding"];
    res.writeHead(this.status, { ...this.headers, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /** Pauses the upstream until the target drains. */
  private waitForDrain(target: net.Socket | http.ServerResponse): void {
    if (this.waitingForDrain) return;
    this.waitingForDrain = true;
    this.exchange.pause();
    target.once("drain", () => {
      this.waitingForDrain = false;
      this.exchange.resume();
    });
  }
}
