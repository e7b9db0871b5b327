import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export interface GatewaySocket {
  path: string;
  close(): Promise<void>;
}

/**
 * The host end of the containers' path to the model gateway: a unix socket (bind-mounted into each
 * agent container) relayed to the gateway's loopback port. Containers need no network at all to
 * reach the gateway, and they can reach nothing else through it: the gateway only forwards model
 * API paths for a valid run token.
 */
export async function startGatewaySocket(options: { socketPath: string; gatewayPort: number }): Promise<GatewaySocket> {
  fs.mkdirSync(path.dirname(options.socketPath), { recursive: true, mode: 0o700 });
  fs.rmSync(options.socketPath, { force: true });
  const server = net.createServer((client) => {
    const upstream = net.connect(options.gatewayPort, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
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
        fs.rmSync(options.socketPath, { force: true });
      }),
  };
}
