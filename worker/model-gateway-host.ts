import fs from "node:fs";
import path from "node:path";
import { stopRun } from "../src/server/agents/agent-run";
import { budgetReason } from "../src/server/agents/run-policy";
import { startGatewaySocket, type GatewaySocket } from "../src/server/agents/gateway-socket";
import { resolveGatewayCredential } from "../src/server/gateway/gateway-credentials";
import { startModelGateway, type ModelGateway } from "../src/server/gateway/model-gateway";
import { dataDirPaths } from "../src/server/storage/data-dir";

export interface ModelGatewayConfig {
  openaiApiKey: string | null;
  codexHome: string;
  upstreamBaseUrl: string;
}

export interface GatewayHost {
  gateway: ModelGateway;
  socket: GatewaySocket;
  close(): Promise<void>;
}

/**
 * The worker's model gateway, served only on the unix socket agent containers reach it through (no TCP port).
 * The credential is resolved at the first model request, so a worker without one still runs other jobs.
 */
export async function startGatewayHost(options: {
  config: ModelGatewayConfig;
  dataDir: string;
  workerId: string;
  log: (line: string) => void;
}): Promise<GatewayHost> {
  const gateway = await startModelGateway({
    upstreamBaseUrl: options.config.upstreamBaseUrl,
    credential: () =>
      resolveGatewayCredential({ openaiApiKey: options.config.openaiApiKey, codexHome: options.config.codexHome }),
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
    },
  };
}
