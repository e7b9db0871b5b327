import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A second Docker engine on this machine, "as if on another host": its own `dockerd` with its own data
 * root (so it starts with no image at all), exec root, pid file and unix socket, and no bridge (its
 * containers run in network mode none; it never touches the host's iptables or, in a network namespace of its
 * own, the host's docker0 bridge). Its managed containerd
 * lives under the exec root. Tried by hand on the development machine (Debian docker.io 20.10, cgroup v1,
 * overlay2): it starts in about 2 s beside the host's engine.
 * `stop()` stops the daemon (SIGTERM, then SIGKILL and whatever it left), unmounts and removes its
 * folders; call it in afterAll so a failing test cleans up too.
 */
export interface SecondEngine {
  /** DOCKER_HOST for processes that should use it. */
  dockerHost: string;
  socketPath: string;
  /** Runs the docker CLI against this engine. */
  docker(args: string[]): { status: number | null; stdout: string; stderr: string };
  /** The daemon's pid: its network namespace is this engine's "host network" (nsenter -t pid -n). */
  pid: number;
  stop(): Promise<void>;
}

function processesUnder(dir: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(dir) ? [Number(entry)] : [];
      } catch {
        return [];
      }
    })
    .filter((pid) => pid !== process.pid);
}

function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath, () => {
      socket.end("GET /_ping HTTP/1.0\r\n\r\n");
    });
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString()));
    socket.on("end", () => resolve(text.includes("OK")));
    socket.on("error", () => resolve(false));
  });
}

function unmountAll(dir: string): void {
  const mounts = fs
    .readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point.startsWith(dir))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) spawnSync("umount", ["-l", point], { stdio: "ignore" });
}

export async function startSecondEngine(options: { timeoutMs?: number } = {}): Promise<SecondEngine> {
  // short: the daemon's and its containerd's sockets live below it (unix socket paths are at most 107 bytes)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-d2-"));
  const socketPath = path.join(dir, "docker.sock");
  const log = fs.openSync(path.join(dir, "dockerd.log"), "a");
  // in a network namespace of its own: a dockerd started with --bridge=none deletes the docker0 bridge of
  // the namespace it runs in, which is the host engine's (seen on Docker 20.10: every container on the
  // default bridge then failed "could not find bridge docker0"); its containers use network mode none
  const child = spawn(
    "unshare",
    [
      "--net",
      "dockerd",
      "--data-root",
      path.join(dir, "data"),
      "--exec-root",
      path.join(dir, "exec"),
      "--pidfile",
      path.join(dir, "docker.pid"),
      "-H",
      `unix://${socketPath}`,
      "--bridge=none",
      "--iptables=false",
      "--ip-masq=false",
      "--ip-forward=false",
    ],
    { stdio: ["ignore", log, log], detached: true },
  );
  fs.closeSync(log);
  const engine: SecondEngine = {
    dockerHost: `unix://${socketPath}`,
    socketPath,
    pid: child.pid ?? -1,
    docker: (args) => {
      const result = spawnSync("docker", ["-H", `unix://${socketPath}`, ...args], { encoding: "utf8" });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    async stop() {
      if (child.pid) {
        try {
          process.kill(child.pid, "SIGTERM");
        } catch {
          // already gone
        }
        if (!(await exited(child, 15_000))) child.kill("SIGKILL");
      }
      for (const pid of processesUnder(dir)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
      unmountAll(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (!(await answers(socketPath))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const text = fs.readFileSync(path.join(dir, "dockerd.log"), "utf8").slice(-2000);
      await engine.stop();
      throw new Error(`the second dockerd did not start: ${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return engine;
}

/** A private redis-server on a loopback TCP port (workers on "other hosts" reach Redis over TCP). */
export async function startTcpRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-redis-tcp-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.end("PING\r\n"));
      socket.on("data", (chunk) => resolve(chunk.toString().includes("PONG")));
      socket.on("error", () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error("redis-server did not start on a loopback port");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      if (!(await exited(child, 5_000))) child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
