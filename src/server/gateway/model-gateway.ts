import http from "node:http";
import type net from "node:net";
import type tls from "node:tls";
import { isAppError } from "../errors/app-error";
import { totalTokens, type TokenUsage } from "../agents/token-usage";
import type { GatewayCredential } from "./gateway-credentials";
import { createRunTokens, type RunRecord } from "./run-tokens";
import { createSseUsageMeter } from "./sse-usage-meter";
import { createUpstreamClient } from "./upstream-client";
import { listenHttp } from "../../lib/listen";

/**
 * The host-side model gateway. Containers use it as their provider `base_url` with a per-run token;
 * it swaps the token for the real credential, forwards to the upstream Responses API, streams the
 * answer back chunk by chunk (backpressure and client aborts propagate both ways), and meters
 * tokens per run from `response.completed`. A chunked stream is relayed with the upstream's own
 * framing (see upstream-client.ts): no per-chunk decode and re-encode on the hot path. The credential never leaves this process except towards
 * the upstream; it is never logged and is redacted from upstream error bodies.
 */
export interface ModelGatewayOptions {
  /** The upstream API, ending in `/v1`: e.g. https://api.openai.com/v1, or a mock model's URL. */
  upstreamBaseUrl: string;
  /** The real credential, resolved at the first request that needs it (so a missing key is reported there too). */
  credential: () => GatewayCredential;
  /** TLS options for an https upstream (e.g. `ca` for a private certificate authority). */
  upstreamTls?: tls.ConnectionOptions;
  /** Default 127.0.0.1. Containers reach the gateway through an address the runtime chooses. */
  host?: string;
  port?: number;
  /** Path prefixes under `/v1` that are forwarded. Default `/responses` and `/models`. */
  allowedPaths?: string[];
  onUsage?: (event: { runId: string; usage: TokenUsage; total: TokenUsage }) => void;
  /** Fired once, when a run's usage reaches its budget; its later requests get 429. */
  onBudgetExceeded?: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  log?: (line: string) => void;
}

export interface ModelGateway {
  /** Base URL for a provider config, ending in `/v1`. */
  url: string;
  port: number;
  issueRunToken(options: { runId: string; budgetTokens?: number | null }): string;
  /** The token stops working at once and the run's in-flight requests are aborted. */
  revoke(runId: string): void;
  /** Tokens the run used so far (also after revoke), or null for an unknown run. */
  usage(runId: string): TokenUsage | null;
  lastUpstreamError(runId: string): string | null;
  /** Drops everything the gateway holds about the run. */
  forget(runId: string): void;
  /** Serves a connection accepted elsewhere (the containers' unix socket) like one on the gateway's port. */
  acceptConnection(socket: net.Socket): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
const DROP_REQUEST = new Set([
  ...HOP_BY_HOP,
  "host",
  "content-length",
  "expect",
  "authorization",
  "api-key",
  "x-api-key",
  "accept-encoding",
  "cookie",
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
]);
const DROP_RESPONSE = new Set([...HOP_BY_HOP, "set-cookie", "openai-organization"]);
const ERROR_BODY_LIMIT = 256 * 1024;
const REQUEST_BODY_LIMIT = 64 * 1024 * 1024;

function connectionTokens(value: string | string[] | undefined): string[] {
  return String(value ?? "")
    .toLowerCase()
    .split(",")
    .map((t) => t.trim());
}

/** The request's headers as lines for the upstream, without hop-by-hop and dropped ones. */
function headerLines(headers: http.IncomingHttpHeaders, drop: Set<string>): [string, string][] {
  const listed = connectionTokens(headers.connection);
  const lines: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop.has(name) || listed.includes(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push([name, one]);
  }
  return lines;
}

/** The upstream's response header lines for the client, without hop-by-hop and dropped ones. */
function headerObject(lines: [string, string][], drop: Set<string>): http.OutgoingHttpHeaders {
  const listed = connectionTokens(lines.filter(([name]) => name === "connection").map(([, value]) => value));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of lines) {
    if (drop.has(name) || listed.includes(name)) continue;
    const previous = out[name];
    out[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return out;
}

function sendError(
  res: http.ServerResponse,
  status: number,
  type: string,
  message: string,
  extraHeaders: http.OutgoingHttpHeaders = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message, type, code: type, param: null } });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...extraHeaders,
  });
  res.end(body);
}

function errorMessageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === "string") return message.slice(0, 500);
  } catch {
    // not JSON
  }
  return body.slice(0, 200).trim() || "(empty body)";
}

export async function startModelGateway(options: ModelGatewayOptions): Promise<ModelGateway> {
  const upstream = new URL(options.upstreamBaseUrl);
  const upstreamPath = upstream.pathname.replace(/\/+$/, ""); // "" for a bare host
  const upstreamClient = createUpstreamClient({
    baseUrl: upstream,
    ...(options.upstreamTls ? { tls: options.upstreamTls } : {}),
  });
  const allowed = options.allowedPaths ?? ["/responses", "/models"];
  const runs = createRunTokens();
  const log = options.log ?? (() => undefined);
  let credential: GatewayCredential | null = null;

  function redact(text: string): string {
    return credential ? text.replaceAll(credential.apiKey, "[redacted]") : text;
  }

  function authenticate(req: http.IncomingMessage, res: http.ServerResponse): RunRecord | null {
    const header = req.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      sendError(
        res,
        401,
        "missing_run_token",
        "The model gateway needs `Authorization: Bearer <run token>`; this request has none. Each run gets its token from invariant-web.",
      );
      return null;
    }
    const run = runs.lookup(match[1]);
    if (!run) {
      sendError(
        res,
        401,
        "invalid_run_token",
        "This run token is not valid: it is unknown, or its run has ended and the token was revoked.",
      );
      return null;
    }
    return run;
  }

  function forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    run: RunRecord,
    apiKey: string,
    subPath: string,
  ): void {
    const search = new URL(req.url ?? "/", "http://gateway").search;
    const headers = headerLines(req.headers, DROP_REQUEST);
    headers.push(["authorization", `Bearer ${apiKey}`], ["accept-encoding", "identity"]);
    const body: Buffer[] = [];
    let size = 0;
    let sent = false;
    // With a Content-Length the request goes upstream as soon as its last byte is here, not a tick later at "end".
    const declared = /^\d{1,15}$/.test(req.headers["content-length"] ?? "")
      ? Number(req.headers["content-length"])
      : null;
    const sendOnce = () => {
      if (sent || res.destroyed) return;
      sent = true;
      send(Buffer.concat(body));
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= REQUEST_BODY_LIMIT) body.push(chunk);
      if (size === declared && size <= REQUEST_BODY_LIMIT) sendOnce();
    });
    req.on("error", () => res.destroy());
    req.on("end", () => {
      if (size > REQUEST_BODY_LIMIT) {
        sendError(
          res,
          413,
          "request_too_large",
          `The model gateway forwards request bodies up to ${REQUEST_BODY_LIMIT / 1024 / 1024} MiB; this one has ${size} bytes.`,
          { connection: "close" },
        );
        return;
      }
      sendOnce();
    });

    function send(requestBody: Buffer): void {
      // "raw": the upstream's chunk framing goes to the client socket as it is; "payload": the decoded
      // body goes through the ServerResponse; "error": an error body, read whole (bounded) and redacted.
      let mode: "raw" | "payload" | "error" | "none" = "none";
      let socket: net.Socket | null = null;
      let status = 502;
      let responseHeaders: http.OutgoingHttpHeaders = {};
      let errorChunks: Buffer[] = [];
      let errorSize = 0;
      let waitingForDrain = false;
      let finished = false;
      let meter: ReturnType<typeof createSseUsageMeter> | null = null;

      const abort = () => {
        exchange.abort();
        res.destroy();
      };
      run.inFlight.add(abort);
      const done = () => {
        finished = true;
        run.inFlight.delete(abort);
      };
      // A client that goes away aborts the upstream request (and with it the model's work).
      res.on("close", () => {
        if (!finished) exchange.abort();
        done();
      });

      /** Pauses the upstream until the target drains. */
      const waitForDrain = (target: net.Socket | http.ServerResponse) => {
        if (waitingForDrain) return;
        waitingForDrain = true;
        exchange.pause();
        target.once("drain", () => {
          waitingForDrain = false;
          exchange.resume();
        });
      };

      const exchange = upstreamClient.request(
        { method: req.method ?? "GET", path: `${upstreamPath}${subPath}${search}`, headers, body: requestBody },
        {
          onHead(head) {
            status = head.status;
            responseHeaders = headerObject(head.headers, DROP_RESPONSE);
            if (status >= 400) {
              mode = "error";
              return;
            }
            const streaming = head.headers.some(
              ([name, value]) => name === "content-type" && value.includes("text/event-stream"),
            );
            if (streaming) meter = usageMeter(run);
            if (res.destroyed || !res.socket) return abort();
            if (head.framing === "chunked" && req.httpVersionMinor >= 1) {
              mode = "raw";
              delete responseHeaders["content-length"];
              res.writeHead(status, { ...responseHeaders, "transfer-encoding": "chunked" });
              // The head leaves with the body bytes that came in the same read, in one write.
              socket = res.socket;
              socket.cork();
              res.flushHeaders();
              process.nextTick(() => socket?.uncork());
            } else {
              mode = "payload";
              if (head.framing !== "length") delete responseHeaders["content-length"];
              res.writeHead(status, responseHeaders);
            }
          },
          onRaw(parts, last) {
            if (mode !== "raw" || socket === null) return false;
            // What one read brought goes out in one write; the last read also ends the response in it.
            socket.cork();
            let flowing = true;
            for (const part of parts) flowing = socket.write(part) && flowing;
            if (last) {
              meter?.end();
              res.end(); // uncorks
            } else socket.uncork();
            if (!flowing && !last) waitForDrain(socket);
            return socket.writableLength > 0; // queued: it still references the read buffer
          },
          onPayload(chunk) {
            meter?.push(chunk);
            if (mode === "payload") {
              if (!res.write(chunk)) waitForDrain(res);
              return true; // a ServerResponse may hold on to it
            }
            if (mode === "error") {
              if (errorSize < ERROR_BODY_LIMIT) errorChunks.push(Buffer.from(chunk));
              errorSize += chunk.length;
            }
            return false;
          },
          onEnd() {
            if (res.writableEnded) return;
            meter?.end();
            if (mode !== "error") return void res.end();
            // Error bodies are small: read them (bounded), redact the key, remember the reason for the run.
            const text = redact(Buffer.concat(errorChunks).subarray(0, ERROR_BODY_LIMIT).toString("utf8"));
            errorChunks = [];
            run.lastUpstreamError = `HTTP ${status}: ${errorMessageOf(text)}`;
            delete responseHeaders["content-encoding"];
            res.writeHead(status, { ...responseHeaders, "content-length": Buffer.byteLength(text) });
            res.end(text);
          },
          onError(error) {
            meter?.end();
            const message = redact(error.message);
            if (mode === "none" || mode === "error") {
              log(`model gateway: upstream ${upstream.host} failed for run ${run.runId}: ${message}`);
              run.lastUpstreamError = `no answer (${message})`;
              sendError(
                res,
                502,
                "upstream_unreachable",
                `The model gateway could not reach the upstream API at ${upstream.host}: ${message}`,
              );
              return;
            }
            // The upstream dropping the connection mid-body (not our client going away) is the run's problem to report.
            if (!res.destroyed) run.lastUpstreamError = `the stream was cut before the response completed (${message})`;
            log(`model gateway: stream for run ${run.runId} ended early: ${message}`);
            res.destroy();
          },
        },
      );
    }
  }

  /** Meters a run's tokens from its Responses API event stream; past the budget, says so once. */
  function usageMeter(run: RunRecord) {
    return createSseUsageMeter({
      onUsage: (usage) => {
        const recorded = runs.record(run.runId, usage);
        if (!recorded) return;
        options.onUsage?.({ runId: run.runId, usage, total: recorded.total });
        if (recorded.crossedBudget && run.budgetTokens !== null) {
          log(
            `model gateway: run ${run.runId} reached its token budget (${totalTokens(recorded.total)} of ${run.budgetTokens})`,
          );
          options.onBudgetExceeded?.({
            runId: run.runId,
            usedTokens: totalTokens(recorded.total),
            budgetTokens: run.budgetTokens,
          });
        }
      },
      onStreamError: (message) => {
        run.lastUpstreamError = redact(message);
      },
    });
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const pathname = new URL(req.url ?? "/", "http://gateway").pathname;
    const run = authenticate(req, res);
    if (!run) return;
    const subPath = pathname.startsWith("/v1/") ? pathname.slice("/v1".length) : null;
    // Encoded dots, slashes and backslashes could be decoded into other paths upstream: not forwarded.
    const encodedSeparator = /%2e|%2f|%5c/i.test(pathname);
    if (
      subPath === null ||
      encodedSeparator ||
      !allowed.some((prefix) => subPath === prefix || subPath.startsWith(`${prefix}/`))
    ) {
      sendError(
        res,
        404,
        "not_found",
        `The model gateway forwards only ${allowed.map((p) => `/v1${p}`).join(" and ")}, not ${pathname}.`,
      );
      return;
    }
    if (run.budgetExceeded) {
      sendError(
        res,
        429,
        "token_budget_exceeded",
        `Run ${run.runId} has used ${totalTokens(run.usage)} tokens, reaching its budget of ${run.budgetTokens ?? 0}; the model gateway accepts no more requests for it.`,
        { "retry-after": "86400" },
      );
      return;
    }
    if (!credential) {
      try {
        credential = options.credential();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`model gateway: ${message}`);
        sendError(
          res,
          503,
          "gateway_not_signed_in",
          isAppError(error) ? message : `The model gateway has no usable credential: ${message}`,
        );
        return;
      }
    }
    forward(req, res, run, credential.apiKey, subPath);
  }

  const server = http.createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      log(`model gateway: ${redact(error instanceof Error ? error.message : String(error))}`);
      sendError(res, 500, "gateway_error", "The model gateway failed to handle the request.");
    }
  });
  const { port, baseUrl } = await listenHttp(server, {
    ...(options.host ? { host: options.host } : {}),
    ...(options.port ? { port: options.port } : {}),
  });

  return {
    url: `${baseUrl}/v1`,
    port,
    issueRunToken: (issue) => runs.issue(issue),
    revoke: (runId) => runs.revoke(runId),
    usage: (runId) => runs.get(runId)?.usage ?? null,
    lastUpstreamError: (runId) => runs.get(runId)?.lastUpstreamError ?? null,
    forget: (runId) => runs.forget(runId),
    acceptConnection: (socket) => server.emit("connection", socket),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        upstreamClient.close();
      }),
  };
}
