import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stopRun } from "../src/server/core/agents/agent-run";
import { budgetReason } from "../src/server/core/agents/run-policy";
import { startGatewaySocket, UNIX_SOCKET_PATH_MAX, type GatewaySocket } from "../src/server/core/agents/gateway-socket";
import { modelAccessOptions, type ModelAccessConfig } from "../src/server/core/gateway/gateway-options";
import {
  startModelGateway,
  type ModelGateway,
  type ModelGatewayOptions,
} from "../src/server/core/gateway/model-gateway";
import type { DashboardChannel } from "../src/server/core/artifacts/dashboard-channel";
import { createRelayedGateway } from "./relayed-gateway";
import type { RemoteModelRuns } from "./jobs/study";
import { startMockModel, type MockModelServer } from "../src/server/core/mock-model/mock-model-server";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { packageRoot } from "../src/lib/package-info";
import { messageOf } from "../src/shared/error-message";

export type ModelGatewayConfig = ModelAccessConfig;

export interface GatewayHost {
  gateway: ModelGateway;
  socket: GatewaySocket;
  /** A worker on another host: its trials' runs are opened with the dashboard's gateway. */
  modelRuns?: RemoteModelRuns;
  close(): Promise<void>;
}

/**
 * Where this worker's gateway socket is: `gateway/<worker>.sock` in the data dir, or, when that path is too long
 * for a unix socket (a deep data dir), `gateway.sock` in a fresh private folder under the temp dir. The worker's
 * mount policy allows that folder (worker-runtime.ts), so its trials mount the socket either way.
 */
export function gatewaySocketPath(dataDir: string, workerId: string): string {
  const socketPath = dataDirPaths(dataDir).gatewaySocket(workerId);
  if (Buffer.byteLength(socketPath) <= UNIX_SOCKET_PATH_MAX) return socketPath;
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), "invariant-gateway-")), "gateway.sock");
}

/** Starts the socket; a private temp folder made for it goes when it closes. */
async function openSocket(o: { socketPath?: string; dataDir: string; workerId: string; gateway: ModelGateway }) {
  const socketPath = o.socketPath ?? gatewaySocketPath(o.dataDir, o.workerId);
  const socket = await startGatewaySocket({ socketPath, gateway: o.gateway });
  const inDataDir = socketPath === dataDirPaths(o.dataDir).gatewaySocket(o.workerId);
  return {
    socket,
    close: async () => {
      await socket.close();
      if (!inDataDir) fs.rmSync(path.dirname(socketPath), { recursive: true, force: true });
    },
  };
}

/**
 * The gateway socket of a worker on another host: no credential here, no upstream; every request of its
 * containers is relayed to the dashboard's gateway under the trial's lease (worker/relayed-gateway.ts).
 */
export async function startRelayedGatewayHost(options: {
  channel: DashboardChannel;
  dataDir: string;
  workerId: string;
  /** Default: gatewaySocketPath(dataDir, workerId). */
  socketPath?: string;
  log: (line: string) => void;
}): Promise<GatewayHost> {
  const gateway = createRelayedGateway({
    channel: options.channel,
    onBudgetExceeded: ({ runId, usedTokens, budgetTokens }) =>
      stopRun(runId, budgetReason({ usedTokens, budgetTokens })),
    log: options.log,
  });
  const { socket, close } = await openSocket({ ...options, gateway });
  return {
    gateway,
    socket,
    modelRuns: gateway,
    async close() {
      await close();
      await gateway.close();
    },
  };
}

/**
 * The worker's model gateway, served only on the unix socket agent containers reach it through (no TCP port).
 * The credential is looked up at each model request (OPENAI_API_KEY, the key stored in the data dir, the
 * host's Codex sign-in), so a worker without one still runs other jobs, and `invariant-web login` applies
 * without a restart. Runs on the scripted model (the demo without credentials) go to the bundled mock model,
 * served by this process on loopback.
 */
export async function startGatewayHost(options: {
  config: ModelGatewayConfig;
  dataDir: string;
  workerId: string;
  /** Default: gatewaySocketPath(dataDir, workerId). */
  socketPath?: string;
  log: (line: string) => void;
  /** Each run's request rate (default: the gateway's). */
  rateLimit?: ModelGatewayOptions["rateLimit"];
}): Promise<GatewayHost> {
  let scripted: MockModelServer | null = null;
  try {
    scripted = await startMockModel({ scriptsDir: path.join(packageRoot(), "mock-scripts"), host: "127.0.0.1" });
  } catch (error) {
    options.log(`scripted model: not available (${messageOf(error)})`);
  }
  const gateway = await startModelGateway({
    ...modelAccessOptions({ config: options.config, dataDir: options.dataDir, log: options.log }),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    scriptedBaseUrl: scripted?.url ?? null,
    onBudgetExceeded: ({ runId, usedTokens, budgetTokens }) =>
      stopRun(runId, budgetReason({ usedTokens, budgetTokens })),
    tcp: false, // containers reach it through the unix socket only: no loopback port for other local processes
    log: options.log,
  });
  const { socket, close } = await openSocket({ ...options, gateway });
  return {
    gateway,
    socket,
    async close() {
      await close();
      await gateway.close();
      await scripted?.close();
    },
  };
}

/** The gateway of this worker: its own (with the credential sources), or on another host the relay to the dashboard's. */
export function startWorkerGatewayHost(options: {
  config: ModelGatewayConfig;
  dataDir: string;
  workerId: string;
  socketPath: string;
  log: (line: string) => void;
  channel: DashboardChannel | null;
}): Promise<GatewayHost> {
  const { channel, ...rest } = options;
  return channel ? startRelayedGatewayHost({ ...rest, channel }) : startGatewayHost(rest);
}
