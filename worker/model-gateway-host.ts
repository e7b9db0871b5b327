import fs from "node:fs";
import path from "node:path";
import { stopRun } from "../src/server/agents/agent-run";
import { budgetReason } from "../src/server/agents/run-policy";
import { startGatewaySocket, type GatewaySocket } from "../src/server/agents/gateway-socket";
import { modelAccessOptions, type ModelAccessConfig } from "../src/server/gateway/gateway-options";
import { startModelGateway, type ModelGateway, type ModelGatewayOptions } from "../src/server/gateway/model-gateway";
import { startMockModel, type MockModelServer } from "../src/server/mock-model/mock-model-server";
import { dataDirPaths } from "../src/server/storage/data-dir";
import { packageRoot } from "../src/lib/package-info";

export type ModelGatewayConfig = ModelAccessConfig;

export interface GatewayHost {
  gateway: ModelGateway;
  socket: GatewaySocket;
  close(): Promise<void>;
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
  log: (line: string) => void;
  /** A worker on another host: the credential comes from the web process over HTTP (worker/dashboard-link.ts). */
  credential?: Pick<ModelGatewayOptions, "credential" | "afterUnauthorized" | "extraSecrets">;
  /** Each run's request rate (default: the gateway's). */
  rateLimit?: ModelGatewayOptions["rateLimit"];
}): Promise<GatewayHost> {
  let scripted: MockModelServer | null = null;
  try {
    scripted = await startMockModel({ scriptsDir: path.join(packageRoot(), "mock-scripts"), host: "127.0.0.1" });
  } catch (error) {
    options.log(`scripted model: not available (${error instanceof Error ? error.message : String(error)})`);
  }
  const gateway = await startModelGateway({
    ...modelAccessOptions({ config: options.config, dataDir: options.dataDir, log: options.log }),
    ...options.credential,
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    scriptedBaseUrl: scripted?.url ?? null,
    onBudgetExceeded: ({ runId, usedTokens, budgetTokens }) =>
      stopRun(runId, budgetReason({ usedTokens, budgetTokens })),
    tcp: false, // containers reach it through the unix socket only: no loopback port for other local processes
    log: options.log,
  });
  let socketPath = dataDirPaths(options.dataDir).gatewaySocket(options.workerId);
  if (Buffer.byteLength(socketPath) > 100)
    socketPath = path.join(fs.mkdtempSync("/tmp/invariant-gateway-"), "gateway.sock");
  const socket = await startGatewaySocket({ socketPath, gateway });
  return {
    gateway,
    socket,
    async close() {
      await socket.close();
      await gateway.close();
      await scripted?.close();
    },
  };
}
