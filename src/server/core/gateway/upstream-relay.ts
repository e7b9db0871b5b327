import type http from "node:http";
import type net from "node:net";
import { clip } from "./echo-limit";
import { clientResponseHeaders, isEventStream } from "./gateway-headers";
import { sendGatewayError, upstreamErrorMessage } from "./gateway-error";
import { JSON_BODY_LIMIT } from "./json-usage";
import type { RunRecord } from "./run-tokens";
import type { RunMetering } from "./run-usage-meter";
import type { SseUsageMeter } from "./sse-usage-meter";
import type { UpstreamClient } from "./upstream-client";
import type { UpstreamExchange, UpstreamHandlers, UpstreamRequest } from "./upstream-exchange";
import type { UpstreamResponseHead } from "./upstream-response-head";
import type { GatewayApi } from "./apis/gateway-api";
import { messageOf } from "../../../shared/error-message";

const ERROR_BODY_LIMIT = 256 * 1024;

export interface UpstreamRelayOptions {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  run: RunRecord;
  client: UpstreamClient;
  request: UpstreamRequest;
  /** The upstream's host, for messages. */
  upstreamHost: string;
  /** The API the request speaks: the gateway's own errors answer in its shape. */
  api: GatewayApi;
  /**
   * How the run's answers on this route are metered (null: a route that spends no tokens, GET /v1/models):
   * an event stream as it passes, any other successful answer read whole and relayed only once its
   * `usage` is recorded (else refused).
   */
  metering: RunMetering | null;
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
 * stream; any other successful answer on a metered route is read whole (bounded) and relayed only when
 * its usage could be recorded; an error body is read whole (bounded), redacted and remembered for the run.
 * A metered stream that ends without its usage (cut by either side) is charged an estimate.
 */
export function relayUpstream(options: UpstreamRelayOptions): void {
  new UpstreamRelay(options).start();
}

/**
 * "raw": the upstream's chunk framing goes to the client socket as it is; "payload": the decoded body
 * goes through the ServerResponse; "error": an error body, read whole (bounded) and redacted; "json": a
 * successful answer that is not a stream, read whole (bounded) to be metered before it is relayed.
 */
type RelayMode = "raw" | "payload" | "error" | "json" | "none" | "discard";

/** The upstream client calls these handlers as methods of the relay: no per-read closure or copy. */
class UpstreamRelay implements UpstreamHandlers {
  private mode: RelayMode = "none";
  private socket: net.Socket | null = null;
  private status = 502;
  private headers: http.OutgoingHttpHeaders = {};
  /** An error body or a JSON answer being read whole (bounded), before it is passed on. */
  private heldChunks: Buffer[] = [];
  private heldSize = 0;
  private waitingForDrain = false;
  private finished = false;
  private meter: SseUsageMeter | null = null;
  private bodyBytes = 0;
  /** The request's tokens are accounted for: metered, charged an estimate, or nothing was spent (an error). */
  private settled = false;
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
      if (!this.finished) {
        this.exchange.abort();
        this.chargeUnmetered("the client went away before the response completed");
      }
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
      this.settled = true; // an error answer spends no tokens
      return;
    }
    const { metering } = this.options;
    if (metering && !isEventStream(head.headers)) {
      this.mode = "json";
      return;
    }
    if (metering) this.meter = metering.stream();
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
      this.endMeter();
      this.options.res.end(); // uncorks
    } else socket.uncork();
    if (!flowing && !last) this.waitForDrain(socket);
    return socket.writableLength > 0; // queued: it still references the read buffer
  }

  onPayload(chunk: Buffer): boolean {
    this.meter?.push(chunk);
    this.bodyBytes += chunk.length;
    if (this.mode === "payload") {
      if (!this.options.res.write(chunk)) this.waitForDrain(this.options.res);
      return true; // a ServerResponse may hold on to it
    }
    const limit = this.mode === "error" ? ERROR_BODY_LIMIT : this.mode === "json" ? JSON_BODY_LIMIT + 1 : 0;
    if (this.heldSize < limit) this.heldChunks.push(Buffer.from(chunk));
    this.heldSize += chunk.length;
    return false;
  }

  onEnd(): void {
    const { res } = this.options;
    if (res.writableEnded) return;
    if (this.mode === "discard") return this.retry();
    if (this.mode === "json") return this.sendJsonBody();
    this.endMeter();
    if (this.mode !== "error") return void res.end();
    this.sendErrorBody();
  }

  onError(error: Error): void {
    const { res, run, upstreamHost, log } = this.options;
    const message = clip(this.options.redact(error.message), 500);
    if (this.mode === "none" || this.mode === "error" || this.mode === "discard" || this.mode === "json") {
      if (this.mode === "json") this.chargeUnmetered(`the upstream cut the answer (${message})`);
      this.settled = true; // no answer: nothing to meter
      log(`model gateway: upstream ${upstreamHost} failed for run ${run.runId}: ${message}`);
      run.lastUpstreamError = `no answer (${message})`;
      sendGatewayError({
        res,
        api: this.options.api,
        status: 502,
        type: "upstream_unreachable",
        message: `The model gateway could not reach the upstream API at ${upstreamHost}: ${message}`,
      });
      return;
    }
    // The upstream dropping the connection mid-body (not our client going away) is the run's problem to report.
    this.endMeter(`the upstream cut the stream (${message})`);
    if (!res.destroyed) run.lastUpstreamError = `the stream was cut before the response completed (${message})`;
    log(`model gateway: stream for run ${run.runId} ended early: ${message}`);
    res.destroy();
  }

  /** After a 401 whose body was dropped: the same request once more with a renewed credential. */
  private retry(): void {
    const { res, run, log } = this.options;
    this.retried = true;
    this.mode = "none";
    this.bodyBytes = 0;
    const fail = (message: string) => {
      log(`model gateway: run ${run.runId}: ${message}`);
      run.lastUpstreamError = message;
      sendGatewayError({ res, status: 401, type: "gateway_sign_in_expired", message, api: this.options.api });
    };
    this.options.retryUnauthorized!().then(
      (request) => {
        if (res.destroyed || this.finished) return;
        if (!request) return fail("The upstream refused the credential (HTTP 401).");
        this.exchange = this.options.client.request({ request, handlers: this });
      },
      (error: unknown) => fail(this.options.redact(messageOf(error))),
    );
  }

  /** Error bodies are small: read them (bounded), redact the key, remember the reason for the run. */
  private sendErrorBody(): void {
    const { res, run } = this.options;
    const text = this.options.redact(Buffer.concat(this.heldChunks).subarray(0, ERROR_BODY_LIMIT).toString("utf8"));
    this.heldChunks = [];
    run.lastUpstreamError = `HTTP ${this.status}: ${upstreamErrorMessage(text)}`;
    delete this.headers["content-encoding"];
    res.writeHead(this.status, { ...this.headers, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /**
   * A successful answer that is not an event stream, read whole: relayed once its usage is recorded;
   * one whose tokens cannot be counted is withheld (502 `unmetered_response`), never passed on unmetered.
   */
  private sendJsonBody(): void {
    const { res, run, log, upstreamHost } = this.options;
    const body = Buffer.concat(this.heldChunks);
    this.heldChunks = [];
    const unmetered = this.options.metering!.json(body);
    if (unmetered === null) {
      this.settled = true;
      res.writeHead(this.status, { ...this.headers, "content-length": body.length });
      res.end(body);
      return;
    }
    const message = `The model gateway withheld an answer from ${upstreamHost} because it cannot meter its tokens: ${unmetered}. It relays only answers whose usage it can count — an event stream that reports it, or a JSON response with its usage — and refuses the rest.`;
    log(`model gateway: run ${run.runId}: ${message}`);
    this.chargeUnmetered(unmetered); // the provider answered, so it may well have counted tokens
    run.lastUpstreamError = `refused a response: ${unmetered}`;
    sendGatewayError({ res, status: 502, type: "unmetered_response", message, api: this.options.api });
  }

  /** The end of a metered stream: one that reported no usage is charged an estimate. */
  private endMeter(cut?: string): void {
    const meter = this.meter;
    if (!meter) return;
    meter.end();
    if (meter.metered) this.settled = true;
    else this.chargeUnmetered(cut ?? "the stream ended without reporting its usage");
  }

  /**
   * A metered request whose usage will never be known (cut by either side, or answered without it) is
   * charged an estimate from its sizes, once (see RunMetering.estimate), so it cannot spend unmetered.
   */
  private chargeUnmetered(why: string): void {
    const { metering, request } = this.options;
    if (!metering || this.settled || this.meter?.metered === true) return;
    this.settled = true;
    metering.estimate({ requestBytes: request.body.length, responseBytes: this.bodyBytes, why });
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
