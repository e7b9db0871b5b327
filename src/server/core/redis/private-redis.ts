import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { probeRedis } from "./connection";
import { isProcessAlive } from "../../../lib/process-alive";
import { dataDirPaths } from "../storage/data-dir";

export const REDIS_INSTALL_HINT =
  "invariant-web needs Redis. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) so redis-server is on PATH, or pass --redis-url redis://HOST:PORT (env REDIS_URL).";

export interface PrivateRedis {
  url: string;
  pid: number;
  /** Resolves when redis-server exits, however it ends (the launcher restarts a Redis that died). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export function findRedisServer(): string | null {
  const result = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}

/**
 * On Linux, `setpriv --pdeathsig TERM` (util-linux) makes the kernel send redis-server SIGTERM when the
 * process that started it dies, even by SIGKILL: a private Redis never outlives its launcher (it flushes
 * its AOF on SIGTERM). Elsewhere, a leftover is stopped by the next start (see stopLeftover).
 */
function parentDeathWrapper(): string[] {
  if (process.platform !== "linux") return [];
  const probe = spawnSync("setpriv", ["--pdeathsig", "TERM", "--", "true"], { stdio: "ignore" });
  return probe.status === 0 ? ["setpriv", "--pdeathsig", "TERM", "--"] : [];
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

/** The socket path: under the data dir, or a short private directory when that path is too long for a socket. */
function socketPath(preferred: string): string {
  // unix socket paths are limited to ~107 bytes
  if (Buffer.byteLength(preferred) <= 100) return preferred;
  return path.join(fs.mkdtempSync("/tmp/invariant-redis-"), "redis.sock");
}

function redisArguments(options: { socket: string; dir: string; pidFile: string; logFile: string }): string[] {
  return [
    "--port",
    "0",
    "--unixsocket",
    options.socket,
    "--unixsocketperm",
    "700",
    "--dir",
    options.dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "everysec",
    "--save",
    "",
    "--pidfile",
    options.pidFile,
    "--logfile",
    options.logFile,
    "--daemonize",
    "no",
    // more than Redis's 16 logical databases: the test suite gives each file that empties one its own
    "--databases",
    "48",
  ];
}

/** Resolves with the exit code (null if it could not be spawned; then `spawnError()` says why). */
function watchExit(child: ChildProcess): { exited: Promise<number | null>; spawnError: () => Error | null } {
  let spawnError: Error | null = null;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", (error) => {
      spawnError = error;
      resolve(null);
    });
  });
  return { exited, spawnError: () => spawnError };
}

/** Waits up to 10 s for the child to answer on `url` and returns its pid; throws if it exits first or never answers. */
async function waitUntilListening(options: {
  url: string;
  binary: string;
  logFile: string;
  child: ChildProcess;
  exit: ReturnType<typeof watchExit>;
}): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const exitCode = await Promise.race([
      options.exit.exited,
      new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 50)),
    ]);
    if (exitCode !== "waiting") {
      const spawnError = options.exit.spawnError();
      if (spawnError) throw new Error(`Could not run ${options.binary}: ${spawnError.message}. ${REDIS_INSTALL_HINT}`);
      throw new Error(`redis-server exited with code ${String(exitCode)} while starting; see ${options.logFile}.`);
    }
    try {
      await probeRedis({ url: options.url, timeoutMs: 500 });
      if (options.child.pid !== undefined) return options.child.pid;
    } catch {
      // not listening yet
    }
  }
  options.child.kill("SIGKILL");
  throw new Error(`redis-server did not start within 10 s; see ${options.logFile}.`);
}

/**
 * Starts a Redis owned by the launcher: unix socket and AOF in `<dataDir>/redis`, no TCP port,
 * so queued work survives restarts and nothing else on the host can reach it.
 */
export async function startPrivateRedis(options: {
  dataDir: string;
  redisServer?: string;
  /** A restart reuses the socket of the Redis it replaces (clients reconnect to the same URL). */
  url?: string;
}): Promise<PrivateRedis> {
  const binary = options.redisServer ?? findRedisServer();
  if (!binary) throw new Error(REDIS_INSTALL_HINT);
  try {
    fs.accessSync(binary, fs.constants.X_OK); // checked here: behind setpriv, a missing binary is only an exit code
  } catch (error) {
    throw new Error(`Could not run ${binary}: ${(error as Error).message}. ${REDIS_INSTALL_HINT}`);
  }
  const files = dataDirPaths(options.dataDir).redis;
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  await stopLeftover(files.pidFile);
  const socket = options.url?.startsWith("unix://") ? options.url.slice("unix://".length) : socketPath(files.socket);
  fs.rmSync(socket, { force: true });
  const [command = binary, ...wrapper] = [...parentDeathWrapper(), binary];
  const child: ChildProcess = spawn(command, [...wrapper, ...redisArguments({ ...files, socket })], {
    stdio: "ignore",
    // a process group of its own: Ctrl-C in the launcher's terminal (SIGINT to the whole foreground group)
    // must not stop Redis before the launcher has stopped what still uses it; it stops Redis last, and
    // the parent-death signal still ends Redis if the launcher is killed
    detached: true,
  });
  const exit = watchExit(child);
  const url = `unix://${socket}`;
  const pid = await waitUntilListening({ url, binary, logFile: files.logFile, child, exit });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    url,
    pid,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM"); // redis flushes the AOF and exits
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit.exited;
      clearTimeout(timer);
    },
  };
}
