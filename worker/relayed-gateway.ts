import http from "node:http";
import type net from "node:net";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { once } from "node:events";
import { totalTokens } from "../src/shared/token-usage";
import type { DashboardChannel, JobLease, RemoteRunStatus } from "../src/server/core/artifacts/dashboard-channel";
import type { ModelGateway } from "../src/server/core/gateway/model-gateway";
import { apiOfPath } from "../src/server/core/gateway/apis/gateway-api";
import { forwardedSearch, runTokenOf } from "../src/server/core/gateway/apis/provider-auth";
import { sendGatewayError } from "../src/server/core/gateway/gateway-error";
import type { RemoteModelRuns } from "./jobs/study";
import { messageOf } from "../src/shared/error-message";

/** How often an open run's metering is read from the dashboard (and after each model request). */
const STATUS_EVERY_MS = 1_000;

interface RelayedRun {
  lease: JobLease;
  token: string;
  revoked: boolean;
  /** Requests in flight: a revoke aborts them, as the gateway does. */
  inFlight: Set<AbortController>;
  status: RemoteRunStatus;
  timer: NodeJS.Timeout;
  budgetTold: boolean;
}

const EMPTY: RemoteRunStatus = {
  usage: null,
  budgetReached: false,
  budgetTokens: null,
  reportedModel: null,
  lastUpstreamError: null,
};
/**
 * Headers that are this hop's own (framing, the run token in whichever header its CLI puts it — Codex's
 * bearer, Claude Code's x-api-key, Gemini CLI's x-goog-api-key — the dashboard's lease headers), never relayed.
 */
const OWN = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "accept-encoding",
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "cookie",
  "te",
  "trailer",
  "upgrade",
]);
const relayable = (name: string) => !OWN.has(name.toLowerCase()) && !name.toLowerCase().startsWith("x-invariant-");

/** The model APIs' path prefixes the dashboard's gateway serves (Responses and Anthropic's /v1, Gemini's /v1beta). */
const MODEL_PREFIXES = ["/v1/", "/v1beta/"];

/** An error of this hop, in the shape of the API the container's CLI speaks (so it shows the reason). */
function answer(res: http.ServerResponse, url: URL, status: number, message: string): void {
  sendGatewayError({ res, api: apiOfPath(url.pathname), status, type: "gateway_error", message });
}

/** One request of a container, relayed to the dashboard's gateway; the run's metering is read again before it ends. */
async function relay(o: {
  channel: DashboardChannel;
  runs: Map<string, RelayedRun>;
  refresh: (runId: string) => Promise<void>;
  req: http.IncomingMessage;
  res: http.ServerResponse;
}): Promise<void> {
  const { req, res } = o;
  const url = new URL(req.url ?? "/", "http://gateway");
  const token = runTokenOf(req, url);
  const entry = token ? [...o.runs.entries()].find(([, run]) => run.token === token && !run.revoked) : undefined;
  if (!entry || !token) return answer(res, url, 401, "Unknown or revoked run token.");
  if (!MODEL_PREFIXES.some((prefix) => url.pathname.startsWith(prefix)))
    return answer(
      res,
      url,
      404,
      `The model gateway forwards only model API paths (/v1/…, /v1beta/…), not ${url.pathname.slice(0, 200)}.`,
    );
  const [runId, run] = entry;
  // the token travels in the relay's own header only: none of the CLI's, and no `key=` in the query
  const headers: Record<string, string> = { "x-invariant-run-token": token };
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === "string" && relayable(name)) headers[name] = value;
  const withBody = req.method !== "GET" && req.method !== "HEAD";
  const controller = new AbortController();
  run.inFlight.add(controller);
  res.once("close", () => {
    controller.abort();
    run.inFlight.delete(controller);
  });
  const response = await o.channel.request(`/api/worker/model${url.pathname}${forwardedSearch(url)}`, {
    method: req.method ?? "GET",
    headers,
    lease: run.lease,
    signal: controller.signal,
    ...(withBody ? { body: Readable.toWeb(req) as unknown as BodyInit, duplex: "half" } : {}),
  });
  const passed: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (relayable(name)) passed[name] = value;
  });
  res.writeHead(response.status, passed);
  if (response.body)
    for await (const chunk of Readable.fromWeb(response.body as WebReadableStream)) {
      if (!res.write(chunk)) await once(res, "drain");
    }
  // the usage of this answer is read before the container sees its end (the run's result reads it at exit)
  await o.refresh(runId).catch(() => undefined);
  res.end();
}

/**
 * The model gateway of a worker on another host, which holds no credential: each trial's run is opened with
 * the dashboard (`open`: a per-run token its gateway issued for the trial this worker holds), the agent
 * container gets that token, and every request it makes on the gateway socket is relayed over the worker
 * API under the trial's lease to the dashboard's gateway, which checks, meters and budgets it. Usage, the
 * budget and upstream errors are read back from the dashboard; a run over budget is stopped here.
 */
export function createRelayedGateway(options: {
  channel: DashboardChannel;
  onBudgetExceeded: (event: { runId: string; usedTokens: number; budgetTokens: number }) => void;
  log: (message: string) => void;
}): ModelGateway & RemoteModelRuns & { close(): Promise<void> } {
  const { channel } = options;
  const runs = new Map<string, RelayedRun>();

  async function refresh(runId: string): Promise<void> {
    const run = runs.get(runId);
    if (!run) return;
    run.status = await channel.json<RemoteRunStatus>("/api/worker/model/run", { lease: run.lease });
    if (run.status.budgetReached && !run.budgetTold) {
      run.budgetTold = true;
      const used = run.status.usage ? totalTokens(run.status.usage) : 0;
      options.onBudgetExceeded({ runId, usedTokens: used, budgetTokens: run.status.budgetTokens ?? used });
    }
  }
  const refreshQuietly = (runId: string) =>
    void refresh(runId).catch((error: unknown) => options.log(`model relay: ${messageOf(error)}`));

  const server = http.createServer((req, res) => {
    relay({ channel, runs, refresh, req, res }).catch((error: unknown) => {
      const url = new URL(req.url ?? "/", "http://gateway");
      if (!res.headersSent)
        answer(res, url, 502, `The dashboard's model gateway could not be reached: ${messageOf(error)}`);
      else res.destroy();
    });
  });

  const status = (runId: string) => runs.get(runId)?.status ?? null;
  return {
    url: "",
    port: 0,
    async open({ runId, lease }) {
      const { token } = await channel.json<{ token: string }>("/api/worker/model/run", { method: "POST", lease });
      const timer = setInterval(() => refreshQuietly(runId), STATUS_EVERY_MS);
      runs.set(runId, { lease, token, revoked: false, inFlight: new Set(), status: EMPTY, timer, budgetTold: false });
    },
    issueRunToken({ runId }) {
      const run = runs.get(runId);
      if (!run)
        throw new Error(`Run ${runId} was not opened with the dashboard: a remote trial's model run is issued there.`);
      return run.token;
    },
    revoke(runId) {
      const run = runs.get(runId);
      if (!run) return;
      run.revoked = true;
      for (const controller of run.inFlight) controller.abort();
    },
    usage: (runId) => status(runId)?.usage ?? null,
    reportedModel: (runId) => status(runId)?.reportedModel ?? null,
    lastUpstreamError: (runId) => status(runId)?.lastUpstreamError ?? null,
    budgetReached: (runId) => status(runId)?.budgetReached ?? false,
    forget(runId) {
      const run = runs.get(runId);
      if (run) clearInterval(run.timer);
      runs.delete(runId);
    },
    acceptConnection: (socket: net.Socket) => server.emit("connection", socket),
    close: () =>
      new Promise<void>((resolve) => {
        for (const run of runs.values()) clearInterval(run.timer);
        runs.clear();
        server.closeAllConnections();
        resolve();
      }),
  };
}
