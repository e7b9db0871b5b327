import http from "node:http";
import https from "node:https";
import { pipeline } from "node:stream";
import { isAppError } from "../errors/app-error";
import { totalTokens, type TokenUsage } from "../agents/token-usage";
import type { GatewayCredential } from "./gateway-credentials";
import { createRunTokens, type RunRecord } from "./run-tokens";
import { createSseUsageMeter } from "./sse-usage-meter";
import { listenHttp } from "../http/listen";

/**
 * The host-side model gateway. Containers use it as their provider `base_url` with a per-run token;
 * it swaps the token for the real credential, forwards to the upstream Responses API, streams the
 * answer back chunk by chunk (backpressure and client aborts propagate both ways), and meters
 * tokens per run from `response.completed`. The credential never leaves this process except towards
 * the upstream; it is never logged and is redacted from upstream error bodies.
 */
export interface ModelGatewayOptions {
  /** The upstream API, ending in `/v1`: e.g. https://api.openai.com/v1, or a mock model's URL. */
  upstreamBaseUrl: string;
  /** The real credential, resolved at the first request that needs it (so a missing key is reported there too). */
  credential: () => GatewayCredential;
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
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);
const DROP_REQUEST = new Set([...HOP_BY_HOP, "host", "authorization", "api-key", "x-api-key", "accept-encoding", "cookie", "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto"]);
const DROP_RESPONSE = new Set([...HOP_BY_HOP, "set-cookie", "openai-organization"]);
const ERROR_BODY_LIMIT = 256 * 1024;

function filterHeaders(headers: http.IncomingHttpHeaders, drop: Set<string>): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  const connectionTokens = String(headers.connection ?? "").toLowerCase().split(",").map((t) => t.trim());
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop.has(name) || connectionTokens.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

function sendError(res: http.ServerResponse, status: number, type: string, message: string, extraHeaders: http.OutgoingHttpHeaders = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message, type, code: type, param: null } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...extraHeaders });
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
  const transport = upstream.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 256 });
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
      sendError(res, 401, "missing_run_token", "The model gateway needs `Authorization: Bearer <run token>`; this request has none. Each run gets its token from invariant-web.");
      return null;
    }
    const run = runs.lookup(match[1]);
    if (!run) {
      sendError(res, 401, "invalid_run_token", "This run token is not valid: it is unknown, or its run has ended and the token was revoked.");
      return null;
    }
    return run;
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse, run: RunRecord, apiKey: string, subPath: string): void {
    const target = new URL(upstream.origin);
    target.pathname = `${upstreamPath}${subPath}`;
    target.search = new URL(req.url ?? "/", "http://gateway").search;
    const headers = { ...filterHeaders(req.headers, DROP_REQUEST), host: target.host, authorization: `Bearer ${apiKey}`, "accept-encoding": "identity" };
    const upstreamReq = transport.request(target, { method: req.method, headers, agent });
    let finished = false;
    const abort = () => {
      upstreamReq.destroy();
      res.destroy();
    };
    run.inFlight.add(abort);
    const done = () => {
      finished = true;
      run.inFlight.delete(abort);
    };
    // A client that goes away aborts the upstream request (and with it the model's work).
    res.on("close", () => {
      if (!finished && !res.writableFinished) upstreamReq.destroy();
      done();
    });
    upstreamReq.on("error", (error) => {
      if (finished) return;
      log(`model gateway: upstream ${target.host} failed for run ${run.runId}: ${redact(error.message)}`);
      if (!res.headersSent) {
        run.lastUpstreamError = `no answer (${redact(error.message)})`;
        sendError(res, 502, "upstream_unreachable", `The model gateway could not reach the upstream API at ${target.host}: ${redact(error.message)}`);
      } else res.destroy();
    });
    upstreamReq.on("response", (upstreamRes) => {
      const status = upstreamRes.statusCode ?? 502;
      const responseHeaders = filterHeaders(upstreamRes.headers, DROP_RESPONSE);
      if (status >= 400) {
        // Error bodies are small: read them (bounded), redact the key, remember the reason for the run.
        const chunks: Buffer[] = [];
        let size = 0;
        upstreamRes.on("data", (chunk: Buffer) => {
          if (size < ERROR_BODY_LIMIT) chunks.push(chunk);
          size += chunk.length;
        });
        upstreamRes.on("error", () => res.destroy());
        upstreamRes.on("end", () => {
          const body = redact(Buffer.concat(chunks).subarray(0, ERROR_BODY_LIMIT).toString("utf8"));
          run.lastUpstreamError = `HTTP ${status}: ${errorMessageOf(body)}`;
          delete responseHeaders["content-length"];
          delete responseHeaders["content-encoding"];
          res.writeHead(status, { ...responseHeaders, "content-length": Buffer.byteLength(body) });
          res.end(body);
        });
        return;
      }
      res.writeHead(status, responseHeaders);
      const streaming = String(upstreamRes.headers["content-type"] ?? "").includes("text/event-stream");
      const meter = streaming
        ? createSseUsageMeter({
            onUsage: (usage) => {
              const recorded = runs.record(run.runId, usage);
              if (!recorded) return;
              options.onUsage?.({ runId: run.runId, usage, total: recorded.total });
              if (recorded.crossedBudget && run.budgetTokens !== null) {
                log(`model gateway: run ${run.runId} reached its token budget (${totalTokens(recorded.total)} of ${run.budgetTokens})`);
                options.onBudgetExceeded?.({ runId: run.runId, usedTokens: totalTokens(recorded.total), budgetTokens: run.budgetTokens });
              }
            },
            onStreamError: (message) => {
              run.lastUpstreamError = redact(message);
            },
          })
        : null;
      if (meter) upstreamRes.on("data", (chunk: Buffer) => meter.push(chunk));
      // The upstream dropping the connection mid-body (not our client going away) is the run's problem to report.
      upstreamRes.on("error", (error) => {
        if (!res.destroyed) run.lastUpstreamError = `the stream was cut before the response completed (${redact(error.message)})`;
      });
      pipeline(upstreamRes, res, (error) => {
        meter?.end();
        if (error && !finished) log(`model gateway: stream for run ${run.runId} ended early: ${redact(error.message)}`);
      });
    });
    pipeline(req, upstreamReq, (error) => {
      if (error && !finished) upstreamReq.destroy();
    });
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const pathname = new URL(req.url ?? "/", "http://gateway").pathname;
    const run = authenticate(req, res);
    if (!run) return;
    const subPath = pathname.startsWith("/v1/") ? pathname.slice("/v1".length) : null;
    // Encoded dots, slashes and backslashes could be decoded into other paths upstream: not forwarded.
    const encodedSeparator = /%2e|%2f|%5c/i.test(pathname);
    if (subPath === null || encodedSeparator || !allowed.some((prefix) => subPath === prefix || subPath.startsWith(`${prefix}/`))) {
      sendError(res, 404, "not_found", `The model gateway forwards only ${allowed.map((p) => `/v1${p}`).join(" and ")}, not ${pathname}.`);
      return;
    }
    if (run.budgetExceeded) {
      sendError(res, 429, "token_budget_exceeded", `Run ${run.runId} has used ${totalTokens(run.usage)} tokens, reaching its budget of ${run.budgetTokens ?? 0}; the model gateway accepts no more requests for it.`, { "retry-after": "86400" });
      return;
    }
    if (!credential) {
      try {
        credential = options.credential();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`model gateway: ${message}`);
        sendError(res, 503, "gateway_not_signed_in", isAppError(error) ? message : `The model gateway has no usable credential: ${message}`);
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
  const { port, baseUrl } = await listenHttp(server, { ...(options.host ? { host: options.host } : {}), ...(options.port ? { port: options.port } : {}) });

  return {
    url: `${baseUrl}/v1`,
    port,
    issueRunToken: (issue) => runs.issue(issue),
    revoke: (runId) => runs.revoke(runId),
    usage: (runId) => runs.get(runId)?.usage ?? null,
    lastUpstreamError: (runId) => runs.get(runId)?.lastUpstreamError ?? null,
    forget: (runId) => runs.forget(runId),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
