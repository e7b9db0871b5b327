import http from "node:http";
import type net from "node:net";
import type tls from "node:tls";
import type { TokenUsage } from "../../../shared/token-usage";
import {
  admitRoute,
  authenticateRun,
  refuseEncodedBody,
  refuseOtherApi,
  refuseOverBudget,
  refuseOverRate,
} from "./gateway-admission";
import { DEFAULT_CHATGPT_BASE_URL } from "./chatgpt-session";
import { apiOfPath, type GatewayApi } from "./apis/gateway-api";
import { forwardedSearch, runTokenOf } from "./apis/provider-auth";
import { createDispatch, createTargets } from "./gateway-dispatch";
import { createGatewayKey, type CredentialLookup } from "./gateway-key";
import { sendGatewayError } from "./gateway-error";
import type { ForwardContext, RecoverCredential } from "./forward-request";
import type { RunPolicy } from "./request-policy";
import { DEFAULT_RATE_LIMIT, type RateLimit } from "./run-rate-limit";
import { createPackageProxy, isProxyRequest, proxyToken } from "./package-proxy";
import { createRunTokens } from "./run-tokens";
import { listenHttp } from "../../../lib/listen";
import { messageOf } from "../../../shared/error-message";

/** Where Anthropic's and Google's requests go unless `upstreams` says otherwise. */
export const DEFAULT_UPSTREAMS = {
  anthropic: "https://api.anthropic.com",
  google: "https://generativelanguage.googleapis.com",
} as const;

/**
 * The host-side model gateway. Containers use it as their provider's base URL with a per-run token;
 * it speaks the OpenAI Responses API (Codex), Anthropic's Messages API (Claude Code) and the Gemini API
 * (Gemini CLI) — each API's routes, policy, auth header, usage and error shape are in apis/ — swaps the
 * token for that provider's real credential, forwards to the provider, streams the answer back chunk
 * by chunk (backpressure and client aborts propagate both ways), and meters tokens per run from each
 * API's usage reports into one TokenUsage and budget. A chunked stream is relayed with the upstream's own
 * framing (see upstream-client.ts): no per-chunk decode and re-encode on the hot path. The credential
 * never leaves this process except towards the upstream; it is never logged and is redacted from
 * upstream error bodies. A request goes: authenticate → check method and path, encoding, budget and rate →
 * read the body → check it against the run's policy (request-policy.ts) → open upstream → relay head →
 * relay body, metered (forward-request.ts, upstream-relay.ts).
 */
export interface ModelGatewayOptions {
  /** OpenAI's upstream API for an API key, ending in `/v1`: e.g. https://api.openai.com/v1, or a mock model's URL. */
  upstreamBaseUrl: string;
  /**
   * Anthropic's and Google's APIs, as server roots (default DEFAULT_UPSTREAMS): requests keep their
   * whole path (`/v1/messages`, `/v1beta/models/…`), appended to the root's path.
   */
  upstreams?: { anthropic?: string; google?: string };
  /** Where a ChatGPT sign-in's requests go (Codex's endpoint for it; default https://chatgpt.com/backend-api/codex). */
  chatgptBaseUrl?: string;
  /**
   * The bundled scripted model for runs whose policy says `scripted`, every API (none: such runs are
   * refused): the mock model's `url` (ending in `/v1`, for Responses; Anthropic's and Gemini's paths go
   * to the server root without it) or its `rootUrl`.
   */
  scriptedBaseUrl?: string | null;
  /**
   * The real credential of a provider, looked up for every request that goes to it (see
   * gateway-credentials.ts for OpenAI's). Null or a throw: not signed in for that provider — OpenAI's
   * answered 503 with the reason, Anthropic's and Google's 401 saying how to sign in.
   */
  credential: CredentialLookup;
  /** After the upstream's 401 to a ChatGPT sign-in: a renewed credential to retry once with (a refresh). */
  afterUnauthorized?: RecoverCredential;
  /** More secrets to redact from logs and error bodies (a sign-in's refresh token). */
  extraSecrets?: () => string[];
  /** TLS options for an https upstream (e.g. `ca` for a private certificate authority). */
  upstreamTls?: tls.ConnectionOptions;
  /**
   * A loopback TCP listener (host default 127.0.0.1, port default a free one) for tests, benchmarks
   * and host-side tools; false: none (the worker serves containers only through `acceptConnection`).
   */
  tcp?: { host?: string; port?: number } | false;
  /** Each run's request rate (default DEFAULT_RATE_LIMIT). */
  rateLimit?: RateLimit;
  /** For the rate limit; default Date.now. */
  clock?: () => number;
  onUsage?: (event: { runId: string; usage: TokenUsage; total: TokenUsage }) => void;
  /** Fired once, when a run's usage reaches its budget; its later requests get 429. */
  onBudgetExceeded?: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  /** The package mirrors containers in network mode `none` may download from through the gateway (package-proxy.ts). */
  packageHosts?: readonly string[];
  /**
   * Sees every request the gateway receives, before it is checked (model API requests, package proxy
   * requests, refused tunnels alike): its run (null without a valid run token), method, path with query
   * (a `?key=` token removed; a proxy request's absolute URL, a tunnel's host:port), and the API its
   * path belongs to. For tests and audits of what a run sends.
   */
  onRequest?: (request: GatewayRequestSeen) => void;
  log?: (line: string) => void;
}

export interface GatewayRequestSeen {
  runId: string | null;
  method: string;
  path: string;
  /** The model API of the path (null: a package proxy request or tunnel, not for a model). */
  api: GatewayApi | null;
}

export interface ModelGateway {
  /** Base URL of the TCP listener for a provider config, ending in `/v1` ("" without one). */
  url: string;
  /** The TCP listener's port (0 without one). */
  port: number;
  /** A run's token, with its budget (input + output tokens) and policy (strict unless given: see request-policy.ts). */
  /** A fresh token for the run, or `token` again (one issued before a restart, still held by a session's container). */
  issueRunToken(options: {
    runId: string;
    budgetTokens?: number | null;
    policy?: RunPolicy;
    token?: string;
    tokenHash?: string;
  }): string;
  /** The token stops working at once and the run's in-flight requests are aborted. */
  revoke(runId: string): void;
  /** Tokens the run used so far (also after revoke), or null for an unknown run. */
  usage(runId: string): TokenUsage | null;
  /** The model name the provider reported in the run's latest finished response, or null. */
  reportedModel(runId: string): string | null;
  lastUpstreamError(runId: string): string | null;
  /** Whether the run's usage reached its token budget. */
  budgetReached(runId: string): boolean;
  /** Drops everything the gateway holds about the run. */
  forget(runId: string): void;
  /** Serves a connection accepted elsewhere (the containers' unix socket) like one on the gateway's port. */
  acceptConnection(socket: net.Socket): void;
  close(): Promise<void>;
}

/**
 * The gateway's HTTP server: model API requests go to `handle`; apt's downloads in network mode none
 * come on the same socket as proxy requests (absolute URLs, package-proxy.ts), and HTTPS tunnels are refused.
 */
function gatewayServer(options: {
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  packages: ReturnType<typeof createPackageProxy>;
  observe: (req: http.IncomingMessage) => void;
  log: (message: string) => void;
}): http.Server {
  const server = http.createServer((req, res) => {
    try {
      options.observe(req);
      if (isProxyRequest(req)) return options.packages.handle(req, res);
      options.handle(req, res);
    } catch (error) {
      options.log(messageOf(error));
      sendGatewayError({
        res,
        api: apiOfPath(new URL(req.url ?? "/", "http://gateway").pathname),
        status: 500,
        type: "gateway_error",
        message: "The model gateway failed to handle the request.",
      });
    }
  });
  server.on("connect", (req: http.IncomingMessage, socket: net.Socket) => {
    options.observe(req);
    options.packages.refuseTunnel(req, socket);
  });
  return server;
}

/** Reports a request to `onRequest` as it arrives: its run from whichever token it carries (model API or proxy). */
function requestObserver(
  onRequest: (request: GatewayRequestSeen) => void,
  runs: ReturnType<typeof createRunTokens>,
): (req: http.IncomingMessage) => void {
  return (req) => {
    const method = req.method ?? "GET";
    const runOf = (token: string | null) => (token ? (runs.lookup(token)?.runId ?? null) : null);
    // a tunnel's or proxy request's target is not a gateway path (and a CONNECT target is no URL)
    if (method === "CONNECT" || isProxyRequest(req)) {
      const path = req.url ?? "";
      return onRequest({ runId: runOf(proxyToken(req)), method, path, api: null });
    }
    const url = new URL(req.url ?? "/", "http://gateway");
    const path = `${url.pathname}${forwardedSearch(url)}`;
    onRequest({ runId: runOf(runTokenOf(req, url)), method, path, api: apiOfPath(url.pathname) });
  };
}

export async function startModelGateway(options: ModelGatewayOptions): Promise<ModelGateway> {
  const targets = createTargets(options.upstreamTls);
  const upstreams = { ...DEFAULT_UPSTREAMS, ...options.upstreams };
  // a malformed URL fails here, at start
  for (const url of [options.upstreamBaseUrl, upstreams.anthropic, upstreams.google]) targets.get(url);
  const [rateLimit, clock] = [options.rateLimit ?? DEFAULT_RATE_LIMIT, options.clock ?? Date.now];
  const runs = createRunTokens();
  const log = options.log ?? (() => undefined);
  const { credential, extraSecrets } = options;
  const key = createGatewayKey({ credential, log, ...(extraSecrets ? { extraSecrets } : {}) });
  const redact = (text: string) => key.redact(text);
  const context: ForwardContext = {
    runs,
    ...(options.onUsage ? { onUsage: options.onUsage } : {}),
    ...(options.onBudgetExceeded ? { onBudgetExceeded: options.onBudgetExceeded } : {}),
    log,
    redact,
  };
  const dispatch = createDispatch({
    targets,
    key,
    context,
    upstreamBaseUrl: options.upstreamBaseUrl,
    chatgptBaseUrl: options.chatgptBaseUrl ?? DEFAULT_CHATGPT_BASE_URL,
    upstreams,
    scriptedBaseUrl: options.scriptedBaseUrl ?? null,
    ...(options.afterUnauthorized ? { afterUnauthorized: options.afterUnauthorized } : {}),
  });

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://gateway");
    const api = apiOfPath(url.pathname);
    const run = authenticateRun({ req, res, url, api, lookup: (token) => runs.lookup(token) });
    if (!run) return;
    const route = admitRoute({ pathname: url.pathname, method: req.method ?? "GET", api, res });
    if (route === null || refuseOtherApi({ run, route, req, url, res })) return;
    if (refuseEncodedBody({ req, res, api }) || refuseOverBudget({ run, res, api })) return;
    if (refuseOverRate({ run, res, api, limit: rateLimit, now: clock() })) return;
    run.active += 1;
    res.once("close", () => {
      run.active -= 1;
    });
    dispatch({ req, res, run, route });
  }

  const server = gatewayServer({
    handle,
    observe: options.onRequest ? requestObserver(options.onRequest, runs) : () => undefined,
    packages: createPackageProxy({
      lookup: (token) => runs.lookup(token),
      log,
      ...(options.packageHosts ? { hosts: options.packageHosts } : {}),
    }),
    log: (message) => log(`model gateway: ${redact(message)}`),
  });
  const tcp = options.tcp ?? {};
  const { port, baseUrl } =
    tcp === false
      ? { port: 0, baseUrl: "" }
      : await listenHttp(server, {
          ...(tcp.host ? { host: tcp.host } : {}),
          ...(tcp.port ? { port: tcp.port } : {}),
        });

  return {
    url: baseUrl ? `${baseUrl}/v1` : "",
    port,
    issueRunToken: (issue) => runs.issue(issue),
    revoke: (runId) => runs.revoke(runId),
    usage: (runId) => runs.get(runId)?.usage ?? null,
    reportedModel: (runId) => runs.get(runId)?.reportedModel ?? null,
    lastUpstreamError: (runId) => runs.get(runId)?.lastUpstreamError ?? null,
    budgetReached: (runId) => runs.get(runId)?.budgetExceeded ?? false,
    forget: (runId) => runs.forget(runId),
    acceptConnection: (socket) => server.emit("connection", socket),
    close: () =>
      new Promise<void>((resolve) => {
        if (server.listening) server.close(() => resolve());
        else resolve();
        server.closeAllConnections();
        targets.close();
      }),
  };
}
