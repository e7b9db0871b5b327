import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { ModelGateway } from "../gateway/model-gateway";

/** The longest path a unix socket can listen on (sun_path holds 108 bytes with its NUL). */
export const UNIX_SOCKET_PATH_MAX = 107;

export interface GatewaySocket {
  path: string;
  close(): Promise<void>;
}

/**
 * The host end of the containers' path to the model gateway: a unix socket (bind-mounted into each
 * agent container) whose connections the gateway's HTTP server serves itself (no relay hop in between;
 * the worker's gateway has no TCP listener at all). Containers need no network to reach the gateway,
 * and through it they reach only what a run's policy allows (request-policy.ts), with a valid run token.
 */
export async function startGatewaySocket(options: {
  socketPath: string;
  gateway: Pick<ModelGateway, "acceptConnection">;
}): Promise<GatewaySocket> {
  fs.mkdirSync(path.dirname(options.socketPath), { recursive: true, mode: 0o700 });
  fs.rmSync(options.socketPath, { force: true });
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    options.gateway.acceptConnection(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => resolve());
  });
  // containers run as root inside, but the socket's directory stays private to this user on the host
  fs.chmodSync(options.socketPath, 0o666);
  return {
    path: options.socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const client of open) client.destroy(); // in-flight model requests end with the worker
        fs.rmSync(options.socketPath, { force: true });
      }),
  };
}
