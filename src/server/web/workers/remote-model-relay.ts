import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { startGatewaySocket, UNIX_SOCKET_PATH_MAX } from "../../core/agents/gateway-socket";
import { AppError } from "../../core/errors/app-error";
import type { RemoteRunStatus } from "../../core/artifacts/dashboard-channel";
import { startModelGateway, type ModelGatewayOptions } from "../../core/gateway/model-gateway";
import { startMockModel } from "../../core/mock-model/mock-model-server";
import { packageRoot } from "../../../lib/package-info";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { LeaseGrant } from "./job-leases";

/**
 * Request headers that are the relay's own business, never forwarded to the gateway: the run token goes in
 * the relay's own bearer only, so any of the CLIs' key headers (x-api-key, x-goog-api-key) is dropped.
 */
const DROPPED = new Set([
  "host",
  "connection",
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "cookie",
  "transfer-encoding",
  "keep-alive",
]);

/** The gateway (with the bundled scripted model for `scripted:` runs) on a unix socket of the web process. */
async function startRelayGateway(options: {
  dataDir: string;
  gateway?: Omit<ModelGatewayOptions, "tcp"> | undefined;
  log: (message: string) => void;
}) {
  const scripted = await startMockModel({
    scriptsDir: path.join(packageRoot(), "mock-scripts"),
    host: "127.0.0.1",
  }).catch(() => null);
  const gateway = await startModelGateway({
    upstreamBaseUrl: "https://api.openai.com/v1",
    credential: () => {
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: "This dashboard was started without model access.",
      });
    },
    ...options.gateway,
    scriptedBaseUrl: scripted?.url ?? null,
    tcp: false,
    log: options.log,
  });
  let socketPath = dataDirPaths(options.dataDir).gatewaySocket("remote-trials");
  if (Buffer.byteLength(socketPath) > UNIX_SOCKET_PATH_MAX)
    socketPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "invariant-remote-gateway-")), "gateway.sock");
  const socket = await startGatewaySocket({ socketPath, gateway });
  return { gateway, socket, scripted };
}

/** A relayed request into the gateway's socket with the run's token; the answer streamed back as it comes. */
async function forwardToGateway(o: {
  socketPath: string;
  token: string;
  /** The API's own path and query (`/v1/responses`, `/v1/messages?beta=true`, `/v1beta/models/…?alt=sse`). */
  path: string;
  req: http.IncomingMessage;
  res: http.ServerResponse;
}): Promise<void> {
  const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${o.token}` };
  for (const [name, value] of Object.entries(o.req.headers))
    if (!DROPPED.has(name) && !name.startsWith("x-invariant-") && value !== undefined) headers[name] = value;
  const upstream = http.request({ socketPath: o.socketPath, method: o.req.method, path: o.path, headers });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    upstream.once("response", resolve);
    upstream.once("error", reject);
  });
  o.res.once("close", () => upstream.destroy());
  await pipeline(o.req, upstream);
  const response = await answered;
  o.res.writeHead(response.statusCode ?? 502, response.headers);
  await pipeline(response, o.res);
}

/**
 * The model gateway of trials that run on workers on other hosts. The credential never leaves this host:
 * a remote trial's agent container holds a per-run token this gateway issued (with the attempt's budget and
 * policy from the dashboard's records), its worker relays each model request over the worker API under its
 * lease on that trial, and this gateway checks, meters, budgets and forwards it as it does for every run.
 */
export function createRemoteModelRelay(options: {
  dataDir: string;
  /** The web process's model access (its sessions' gateway options); absent: remote trials get a clear 503. */
  gateway?: Omit<ModelGatewayOptions, "tcp"> | undefined;
  log: (message: string) => void;
}) {
  const runs = new Map<string, { runId: string; token: string }>();
  let started: ReturnType<typeof startRelayGateway> | null = null;

  const ready = () => (started ??= startRelayGateway(options));

  function runOf(grant: LeaseGrant) {
    if (!grant.trial)
      throw new AppError({ code: "FORBIDDEN", message: `Job ${grant.jobId} is not a trial: it has no model run.` });
    return grant.trial;
  }

  return {
    /** The run token of the leased trial's agent run (the same one again when asked twice). */
    async open(grant: LeaseGrant): Promise<{ token: string }> {
      const trial = runOf(grant);
      const { gateway } = await ready();
      const held = runs.get(grant.jobId);
      if (held) return { token: held.token };
      const runId = `remote-${trial.trialId}-${trial.attempt}`;
      const token = gateway.issueRunToken({ runId, budgetTokens: trial.budgetTokens, policy: trial.policy });
      runs.set(grant.jobId, { runId, token });
      return { token };
    },

    async status(grant: LeaseGrant): Promise<RemoteRunStatus> {
      const run = runs.get(grant.jobId);
      if (!run) throw new AppError({ code: "NOT_FOUND", message: `Job ${grant.jobId} opened no model run.` });
      const { gateway } = await ready();
      return {
        usage: gateway.usage(run.runId),
        budgetReached: gateway.budgetReached(run.runId),
        budgetTokens: runOf(grant).budgetTokens,
        reportedModel: gateway.reportedModel(run.runId),
        lastUpstreamError: gateway.lastUpstreamError(run.runId),
      };
    },

    /** One model request of the leased trial's agent, with the run token its container holds, into the gateway. */
    async forward(o: {
      grant: LeaseGrant;
      runToken: string | undefined;
      /** The model API's path and query, as the agent's CLI sent it (its `key=` removed). */
      path: string;
      req: http.IncomingMessage;
      res: http.ServerResponse;
    }): Promise<void> {
      const run = runs.get(o.grant.jobId);
      if (!run || run.token !== o.runToken)
        throw new AppError({
          code: "FORBIDDEN",
          message: `This run token is not the one of job ${o.grant.jobId}'s model run (open it first).`,
        });
      await forwardToGateway({ ...o, socketPath: (await ready()).socket.path, token: run.token });
    },

    /** Forgets the trial's run (its token stops working at once). */
    async end(jobId: string): Promise<void> {
      const run = runs.get(jobId);
      if (!run || !started) return;
      runs.delete(jobId);
      const { gateway } = await started;
      gateway.revoke(run.runId);
      gateway.forget(run.runId);
    },

    async close(): Promise<void> {
      if (!started) return;
      const { gateway, socket, scripted } = await started;
      await socket.close();
      await gateway.close();
      await scripted?.close();
    },
  };
}

export type RemoteModelRelay = ReturnType<typeof createRemoteModelRelay>;
