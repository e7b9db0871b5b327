import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { SecondEngine } from "./second-engine";

/**
 * A local OCI registry (Debian's docker-registry, offline) behind a counting proxy: both engines name it
 * `127.0.0.1:<port>` (Docker talks plain HTTP to loopback registries). The second engine's daemon lives in
 * a network namespace of its own, so a forwarder in that namespace listens on the same port and carries
 * each connection over a unix socket to the proxy here. `moved()` is what crossed the proxy since the
 * last `reset()`: `up` (pushes) and `down` (pulls), in bytes.
 */
export interface LocalRegistry {
  address: string;
  moved(): { up: number; down: number };
  reset(): void;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Run inside the engine's namespace: loopback up, then 127.0.0.1:port → the unix socket. */
const FORWARDER = `
const net = require("node:net");
const [port, socket] = process.argv.slice(1);
net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
}).listen(Number(port), "127.0.0.1", () => console.log("ready"));
`;

function forwardInto(engine: SecondEngine, port: number, socketPath: string): Promise<ChildProcess> {
  const child = spawn(
    "nsenter",
    [
      "-t",
      String(engine.pid),
      "-n",
      "sh",
      "-c",
      'ip link set lo up && exec "$0" -e "$1" "$2" "$3"',
      process.execPath,
      FORWARDER,
      String(port),
      socketPath,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve(child));
    child.once("exit", (code) =>
      reject(new Error(`the registry forwarder in the engine's namespace exited ${code}: ${err}`)),
    );
  });
}

export async function startLocalRegistry(options: { engine?: SecondEngine } = {}): Promise<LocalRegistry> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-registry-"));
  const [registryPort, port] = [await freePort(), await freePort()];
  fs.writeFileSync(
    path.join(dir, "config.yml"),
    [
      "version: 0.1",
      "log: { level: warn }",
      `storage: { filesystem: { rootdirectory: ${path.join(dir, "data")} }, delete: { enabled: true } }`,
      `http: { addr: 127.0.0.1:${registryPort} }`,
      "",
    ].join("\n"),
  );
  const registry = spawn("docker-registry", ["serve", path.join(dir, "config.yml")], {
    stdio: ["ignore", "ignore", fs.openSync(path.join(dir, "registry.log"), "a")],
  });
  const counted = { up: 0, down: 0 };
  const proxy = (client: net.Socket) => {
    const upstream = net.connect(registryPort, "127.0.0.1");
    client.on("data", (chunk: Buffer) => (counted.up += chunk.length));
    upstream.on("data", (chunk: Buffer) => (counted.down += chunk.length));
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  };
  const tcp = net.createServer(proxy);
  const unix = net.createServer(proxy);
  const socketPath = path.join(dir, "registry.sock");
  await Promise.all([
    new Promise<void>((resolve) => tcp.listen(port, "127.0.0.1", resolve)),
    new Promise<void>((resolve) => unix.listen(socketPath, resolve)),
  ]);
  const stop = async () => {
    forwarder?.kill("SIGKILL");
    registry.kill("SIGTERM");
    await Promise.all([new Promise((resolve) => tcp.close(resolve)), new Promise((resolve) => unix.close(resolve))]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  let forwarder: ChildProcess | null = null;
  try {
    await until("docker-registry", () =>
      fetch(`http://127.0.0.1:${registryPort}/v2/`).then(
        (response) => response.ok,
        () => false,
      ),
    );
    if (options.engine) forwarder = await forwardInto(options.engine, port, socketPath);
  } catch (error) {
    const log = fs.readFileSync(path.join(dir, "registry.log"), "utf8").slice(-2000);
    await stop();
    throw new Error(`${String(error)}\ndocker-registry's log: ${log}`, { cause: error });
  }
  counted.up = counted.down = 0;
  return {
    address: `127.0.0.1:${port}`,
    moved: () => ({ ...counted }),
    reset() {
      counted.up = counted.down = 0;
    },
    stop,
  };
}
