import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on host:port (0 = any free port) and returns the bound port and an http base URL for it. */
export async function listenHttp(
  server: Server,
  options: { host?: string; port?: number },
): Promise<{ port: number; baseUrl: string }> {
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  return { port, baseUrl: `http://${urlHost}:${port}` };
}
