import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { probeRedis } from "./connection";
import { isProcessAlive } from "../system/process-alive";

export const REDIS_INSTALL_HINT =
  "invariant-web needs Redis. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) so redis-server is on PATH, or pass --redis-url redis://HOST:PORT (env REDIS_URL).";

export interface PrivateRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export function findRedisServer(): string | null {
  const result = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}

/** Stops a private Redis left behind by a launcher that was killed (its pid file is in the data dir). */
async function stopLeftover(pidFile: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, "utf8").trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 1 || !isProcessAlive(pid)) return;
  let command = "";
  try {
    command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    // not Linux or already gone
  }
  if (command && !command.includes("redis-server")) return;
  process.kill(pid, "SIGTERM");
  for (let i = 0; i < 100 && isProcessAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Starts a Redis owned by the launcher: unix socket and AOF in `<dataDir>/redis`, no TCP port,
 * so queued work survives restarts and nothing else on the host can reach it.
 */
export async function startPrivateRedis(options: { dataDir: string; redisServer?: string }): Promise<PrivateRedis> {
  const binary = options.redisServer ?? findRedisServer();
  if (!binary) throw new Error(REDIS_INSTALL_HINT);
  const dir = path.join(options.dataDir, "redis");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pidFile = path.join(dir, "redis.pid");
  await stopLeftover(pidFile);
  let socket = path.join(dir, "redis.sock");
  if (Buffer.byteLength(socket) > 100) {
    // unix socket paths are limited to ~107 bytes; use a short private directory instead
    const short = fs.mkdtempSync("/tmp/invariant-redis-");
    socket = path.join(short, "redis.sock");
  }
  fs.rmSync(socket, { force: true });
  const logFile = path.join(dir, "redis.log");
  const child: ChildProcess = spawn(
    binary,
    [
      "--port",
      "0",
      "--unixsocket",
      socket,
      "--unixsocketperm",
      "700",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--save",
      "",
      "--pidfile",
      pidFile,
      "--logfile",
      logFile,
      "--daemonize",
      "no",
    ],
    { stdio: "ignore" },
  );
  let spawnError: Error | null = null;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", (error) => {
      spawnError = error;
      resolve(null);
    });
  });
  const url = `unix://${socket}`;
  const deadline = Date.now() + 10_000;
  let started = false;
  while (Date.now() < deadline) {
    const exitCode = await Promise.race([
      exited,
      new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 50)),
    ]);
    if (exitCode !== "waiting") {
      if (spawnError)
        throw new Error(`Could not run ${binary}: ${(spawnError as Error).message}. ${REDIS_INSTALL_HINT}`);
      throw new Error(`redis-server exited with code ${String(exitCode)} while starting; see ${logFile}.`);
    }
    try {
      await probeRedis({ url, timeoutMs: 500 });
      started = true;
      break;
    } catch {
      // not listening yet
    }
  }
  if (!started || child.pid === undefined) {
    child.kill("SIGKILL");
    throw new Error(`redis-server did not start within 10 s; see ${logFile}.`);
  }
  const pid = child.pid;
  return {
    url,
    pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM"); // redis flushes the AOF and exits
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
