import fs from "node:fs";
import path from "node:path";
import { startGatewaySocket, UNIX_SOCKET_PATH_MAX, type GatewaySocket } from "../../core/agents/gateway-socket";
import { startModelGateway, type ModelGateway, type ModelGatewayOptions } from "../../core/gateway/model-gateway";
import { startMockModel, type MockModelServer } from "../../core/mock-model/mock-model-server";
import { packageRoot } from "../../../lib/package-info";
import { messageOf } from "../../../shared/error-message";

export interface SessionGateway {
  gateway: ModelGateway;
  /** Host folder holding `gateway.sock`: session containers mount the folder (a restart's new socket shows up in it). */
  socketDir: string;
  close(): Promise<void>;
}

export const SESSION_GATEWAY_SOCKET = "gateway.sock";

/**
 * The web process's model gateway, for terminal sessions (trials use their worker's): the same gateway,
 * policy and budgets, served only on a unix socket in `socketDir`. A session outlives a restart of the
 * web process, so the socket's folder is what containers mount, and their tokens are issued again.
 */
export async function startSessionGateway(options: {
  socketDir: string;
  /** The upstream and credential, as the workers' gateways get them. */
  gateway: Omit<ModelGatewayOptions, "tcp">;
  /**
   * The scripts of the bundled scripted model that sessions on a `scripted:<script>` model talk to, as
   * trials on it do through their worker (default: the package's mock-scripts/).
   */
  scriptsDir?: string;
}): Promise<SessionGateway> {
  const socketPath = path.join(options.socketDir, SESSION_GATEWAY_SOCKET);
  if (Buffer.byteLength(socketPath) > UNIX_SOCKET_PATH_MAX)
    throw new Error(
      `The data dir's path is too long for the sessions' gateway socket (${socketPath}); use a data dir with a shorter path.`,
    );
  fs.mkdirSync(options.socketDir, { recursive: true, mode: 0o700 });
  // containers run as other users than this one: they must be able to reach the socket in the folder
  fs.chmodSync(options.socketDir, 0o711);
  const scripted = await startScriptedModel(options);
  const gateway = await startModelGateway({
    scriptedBaseUrl: scripted?.url ?? null,
    ...options.gateway,
    tcp: false,
  });
  let socket: GatewaySocket;
  try {
    socket = await startGatewaySocket({ socketPath, gateway });
  } catch (error) {
    await gateway.close();
    await scripted?.close();
    throw error;
  }
  return {
    gateway,
    socketDir: options.socketDir,
    async close() {
      await socket.close();
      await gateway.close();
      await scripted?.close();
    },
  };
}

/** The bundled scripted model on loopback, or null (said in the log) when it cannot start: scripted sessions are then refused. */
async function startScriptedModel(options: {
  scriptsDir?: string;
  gateway: { log?: ((line: string) => void) | undefined };
}): Promise<MockModelServer | null> {
  try {
    return await startMockModel({
      scriptsDir: options.scriptsDir ?? path.join(packageRoot(), "mock-scripts"),
      host: "127.0.0.1",
    });
  } catch (error) {
    options.gateway.log?.(`sessions: the scripted model is not available (${messageOf(error)})`);
    return null;
  }
}
