import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { startWebServer, type WebServer } from "../server/web/http/web-server";
import { modelAccessOptions } from "../server/core/gateway/gateway-options";
import { modelAccessSettingsOf } from "./model-access-output";
import { resolveHostCaBundle } from "../server/core/runtime/host-ca";
import { startPrivateRedis, type PrivateRedis } from "../server/core/redis/private-redis";
import { probeRedis, redactRedisUrl } from "../server/core/redis/connection";
import { guardStandardStreams, writeQuietly } from "../lib/standard-streams";
import type { CliConfig } from "./config";
import { lockDataDir } from "./data-dir-lock";
import { workerHint } from "./worker-hint";
import { supervise, type Supervisable, type Supervisor } from "./supervisor";
import { messageOf } from "../shared/error-message";

const log = (message: string) => writeQuietly(process.stderr, `[invariant-web] ${message}\n`);

/** How long a stop may take in all (worker, web, Redis) before what is left is killed. */
const STOP_DEADLINE_MS = 35_000;
const WORKER_STOP_MS = 20_000;
const WEB_CLOSE_MS = 10_000;

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Opens a browser on a one-time sign-in URL (`?code=`, redeemed once): a command line is readable by
 * every user of the host, so the admin token never goes into one.
 */
function openBrowser(signInUrl: string): void {
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  const child = spawn(command, [signInUrl], { stdio: "ignore", detached: true });
  child.on("error", () => log("could not open a browser; open the URL printed on stdout yourself"));
  child.unref();
}

/** The worker child's command line and environment: the Redis URL (it may hold a password) travels in the environment, never in argv. */
export function workerChildInvocation(options: { cliPath: string; config: CliConfig; redisUrl: string }): {
  args: string[];
  env: NodeJS.ProcessEnv;
} {
  const { config } = options;
  return {
    args: [
      options.cliPath,
      "worker",
      "--child",
      "--data-dir",
      config.dataDir,
      "--concurrency",
      String(config.concurrency),
    ],
    env: { ...process.env, REDIS_URL: options.redisUrl },
  };
}

function startWorkerChild(options: { cliPath: string; config: CliConfig; redisUrl: string }): ChildProcess {
  const { args, env } = workerChildInvocation(options);
  return spawn(process.execPath, args, { env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

/** A child process as the supervisor watches it: a failed spawn counts as an exit. */
function supervisable(child: ChildProcess): Supervisable {
  return {
    pid: child.pid ?? -1,
    exited: new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", () => resolve({ code: null, signal: null }));
    }),
  };
}

async function stopChild(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Redis from --redis-url (it must answer), else a private Redis of this data dir. */
async function findRedis(config: CliConfig): Promise<{ redisUrl: string; privateRedis: PrivateRedis | null }> {
  if (config.redisUrl) {
    const url = config.redisUrl;
    await probeRedis({ url }).catch((error: unknown) => {
      const why = messageOf(error).replace(/\.$/, "");
      throw new Error(
        `Cannot reach Redis at ${redactRedisUrl(url)} (${why}). Check the URL, or omit --redis-url to use a private Redis.`,
      );
    });
    return { redisUrl: url, privateRedis: null };
  }
  const privateRedis = await startPrivateRedis({ dataDir: config.dataDir });
  log(`private Redis started (pid ${privateRedis.pid})`);
  return { redisUrl: privateRedis.url, privateRedis };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The private Redis, restarted from its AOF at the same socket when it dies. */
function superviseRedis(options: {
  first: PrivateRedis;
  dataDir: string;
  url: string;
  onRestart: (redis: PrivateRedis) => void;
}): Supervisor {
  return supervise({
    name: "redis",
    label: "Redis",
    first: options.first,
    start: async () => {
      const next = await startPrivateRedis({ dataDir: options.dataDir, url: options.url });
      options.onRestart(next);
      return next;
    },
    restartNote: "restarting from its append-only file",
    log,
  });
}

/** The worker child, started again when it dies; when that keeps failing, the log says how to run one by hand. */
function superviseWorker(options: { start: () => ChildProcess; hint: string }): Supervisor {
  return supervise({
    name: "worker",
    label: "The worker",
    first: supervisable(options.start()),
    start: () => Promise.resolve(supervisable(options.start())),
    restartNote: "restarting it",
    log,
    onFailing: () => log(`the worker keeps exiting; restarts go on every 30 s. To run one yourself: ${options.hint}`),
  });
}

/** Closes the web server, bounded: a Redis that vanished first must not keep the launcher alive. */
async function closeWeb(web: WebServer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = web.close().then(
    () => true,
    (error: unknown) => (log(`web: ${String(error)}`), true),
  );
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), WEB_CLOSE_MS)));
  if (!(await Promise.race([closed, timedOut])))
    log(`the web server did not close within ${WEB_CLOSE_MS / 1000} s (is Redis gone?); exiting anyway`);
  clearTimeout(timer);
}

/**
 * `invariant-web`: the web process itself, plus a worker child and, when no Redis URL is given,
 * a private Redis. SIGINT, SIGTERM and SIGHUP (the terminal closed) stop all of them within
 * STOP_DEADLINE_MS; nothing is left running. Output whose reader went away is dropped.
 */
/** What the web process takes from the configuration: base image, model access, sign-in and terminal sessions. */
function webOptionsOf(config: CliConfig) {
  return {
    baseImage: config.baseImage,
    ...(config.branchAuthor ? { branchIdentity: config.branchAuthor } : {}),
    modelAccess: modelAccessSettingsOf(config), // no secret: whether each key's variable is set
    sessionMaxAgeMs: config.sessionDays * 24 * 3600_000,
    registry: config.registry,
    garbage: { everyMs: config.gcIntervalMinutes * 60_000 },
    workerUploadLimits: {
      ...(config.workerUploadMib.results ? { resultBytes: config.workerUploadMib.results * 1024 ** 2 } : {}),
      ...(config.workerUploadMib.images ? { imageBytes: config.workerUploadMib.images * 1024 ** 2 } : {}),
    },
    sessions: {
      gateway: modelAccessOptions({ config: config.modelGateway, dataDir: config.dataDir, log }),
      hostCaBundle: resolveHostCaBundle({ setting: config.hostCa }),
      idleStopMs: config.sessionIdleMinutes * 60_000,
      workspaceKind: config.workspaceKind,
    },
  };
}

export async function launch(options: {
  config: CliConfig;
  root: string;
  version: string;
  cliPath: string;
}): Promise<void> {
  const { config } = options;
  guardStandardStreams();
  // stdout carries exactly one line, the URL; everything else (ours and Next.js's logs) goes to stderr
  console.log = console.error;
  console.info = console.error;
  const lock = lockDataDir(config.dataDir);
  let redis: PrivateRedis | null = null;
  let web: WebServer | null = null;
  let worker: ChildProcess | null = null;
  let shuttingDown: Promise<void> | null = null;
  // the private Redis and the worker child are restarted when they die (see supervisor.ts)
  const supervisors: Supervisor[] = [];

  const shutdown = (reason: string, exitCode: number) => {
    shuttingDown ??= (async () => {
      log(`stopping (${reason})`);
      for (const supervisor of supervisors) supervisor.release();
      // past the deadline whatever is left is killed: the launcher never lingers, and never alone
      setTimeout(() => {
        log(`not stopped within ${STOP_DEADLINE_MS / 1000} s; killing what is left`);
        for (const pid of [worker?.pid, redis?.pid]) if (pid) killQuietly(pid);
        lock.release();
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      if (worker) await stopChild(worker, WORKER_STOP_MS);
      if (web) await closeWeb(web);
      if (redis) await redis.stop();
      lock.release();
      process.exit(exitCode);
    })();
    return shuttingDown;
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(signal, 0));

  try {
    const found = await findRedis(config);
    redis = found.privateRedis;
    const { redisUrl } = found;
    if (redis)
      supervisors.push(
        superviseRedis({ first: redis, dataDir: config.dataDir, url: redisUrl, onRestart: (next) => (redis = next) }),
      );
    const port = config.port === 0 ? await freePort(config.host) : config.port;
    web = await startWebServer({
      root: options.root,
      dataDir: config.dataDir,
      host: config.host,
      port,
      redisUrl,
      allowedHosts: config.allowedHosts,
      version: options.version,
      ...webOptionsOf(config),
      log,
      supervision: () => supervisors.map((supervisor) => supervisor.status()),
    }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
        throw new Error(
          `Port ${port} on ${config.host} is already in use. Pass --port with another number, or stop the program using it.`,
        );
      throw error;
    });
    if (config.worker)
      supervisors.push(
        superviseWorker({
          start: () => (worker = startWorkerChild({ cliPath: options.cliPath, config, redisUrl })),
          hint: workerHint({ dataDir: config.dataDir, redisUrl }),
        }),
      );
    const link = `${web.url}/?token=${web.adminToken}`;
    lock.update({ url: web.url });
    writeQuietly(process.stdout, `invariant-web ${options.version} is running at ${link}\n`);
    if (config.open) openBrowser(web.signInUrl());
  } catch (error) {
    log(messageOf(error));
    await shutdown("startup failed", 1);
  }
}
