import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { ModelGateway } from "../gateway/model-gateway";

export interface GatewaySocket {
  path: string;
  close(): Promise<void>;
}

/**
 * The host end of the containers' path to the model gateway: a unix socket (bind-mounted into each
 * agent container) whose connections the gateway serves itself, exactly like those on its loopback
 * port (no relay hop in between). Containers need no network at all to reach the gateway, and they
 * can reach nothing else through it: the gateway only forwards model API paths for a valid run token.
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
