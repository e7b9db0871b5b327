import http from "node:http";
import type net from "node:net";
import type tls from "node:tls";
import type { TokenUsage } from "../agents/token-usage";
import { allowedSubPath, authenticateRun, refuseOverBudget } from "./gateway-admission";
import type { GatewayCredential } from "./gateway-credentials";
import { createGatewayKey } from "./gateway-key";
import { sendGatewayError } from "./gateway-error";
import { forwardRequest, type ForwardContext } from "./forward-request";
import { createRunTokens } from "./run-tokens";
import { createUpstreamClient } from "./upstream-client";
import { listenHttp } from "../../lib/listen";

/**
 * The host-side model gateway. Containers use it as their provider `base_url` with a per-run token;
 * it swaps the token for the real credential, forwards to the upstream Responses API, streams the
 * answer back chunk by chunk (backpressure and client aborts propagate both ways), and meters
 * tokens per run from `response.completed`. A chunked stream is relayed with the upstream's own
 * framing (see upstream-client.ts): no per-chunk decode and re-encode on the hot path. The credential
 * never leaves this process except towards the upstream; it is never logged and is redacted from
 * upstream error bodies. A request goes: authenticate → check path and budget → read the body → open
 * upstream → relay head → relay body, metered (forward-request.ts, upstream-relay.ts).
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

export async function startModelGateway(options: ModelGatewayOptions): Promise<ModelGateway> {
  const upstream = new URL(options.upstreamBaseUrl);
  const client = createUpstreamClient({
    baseUrl: upstream,
    ...(options.upstreamTls ? { tls: options.upstreamTls } : {}),
  });
  const allowed = options.allowedPaths ?? ["/responses", "/models"];
  const runs = createRunTokens();
  const log = options.log ?? (() => undefined);
  const key = createGatewayKey({ credential: options.credential, log });
  const redact = (text: string) => key.redact(text);

  const context: ForwardContext = {
    client,
    upstreamPath: upstream.pathname.replace(/\/+$/, ""), // "" for a bare host
    upstreamHost: upstream.host,
    runs,
    ...(options.onUsage ? { onUsage: options.onUsage } : {}),
    ...(options.onBudgetExceeded ? { onBudgetExceeded: options.onBudgetExceeded } : {}),
    log,
    redact,
  };

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const pathname = new URL(req.url ?? "/", "http://gateway").pathname;
    const run = authenticateRun({ req, res, lookup: (token) => runs.lookup(token) });
    if (!run) return;
    const subPath = allowedSubPath({ pathname, res, allowed });
    if (subPath === null || refuseOverBudget({ run, res })) return;
    const apiKey = key.apiKeyFor(res);
    if (apiKey !== null) forwardRequest({ context, req, res, run, apiKey, subPath });
  }

  const server = http.createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      log(`model gateway: ${redact(error instanceof Error ? error.message : String(error))}`);
      sendGatewayError({
        res,
        status: 500,
        type: "gateway_error",
        message: "The model gateway failed to handle the request.",
      });
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
        client.close();
      }),
  };
}
