import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { startWebServer, type WebServer } from "../server/http/web-server";
import { startPrivateRedis, type PrivateRedis } from "../server/redis/private-redis";
import { probeRedis, redactRedisUrl } from "../server/redis/connection";
import type { CliConfig } from "./config";
import { lockDataDir } from "./data-dir-lock";

const log = (message: string) => process.stderr.write(`[invariant-web] ${message}\n`);

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
      const why = error instanceof Error ? error.message.replace(/\.$/, "") : String(error);
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

/**
 * `invariant-web`: the web process itself, plus a worker child and, when no Redis URL is given,
 * a private Redis. SIGINT/SIGTERM stop all of them; nothing is left running.
 */
export async function launch(options: {
  config: CliConfig;
  root: string;
  version: string;
  cliPath: string;
}): Promise<void> {
  const { config } = options;
  // stdout carries exactly one line, the URL; everything else (ours and Next.js's logs) goes to stderr
  console.log = console.error;
  console.info = console.error;
  const lock = lockDataDir(config.dataDir);
  let redis: PrivateRedis | null = null;
  let web: WebServer | null = null;
  let worker: ChildProcess | null = null;
  let shuttingDown: Promise<void> | null = null;

  const shutdown = (reason: string, exitCode: number) => {
    shuttingDown ??= (async () => {
      log(`stopping (${reason})`);
      if (worker) await stopChild(worker, 15_000);
      if (web) {
        // bounded: a Redis that vanished first (killed with the launcher's process group) must not keep us alive
        let timer: NodeJS.Timeout | undefined;
        const closed = web.close().then(
          () => true,
          (error: unknown) => (log(`web: ${String(error)}`), true),
        );
        const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 15_000)));
        if (!(await Promise.race([closed, timedOut])))
          log("the web server did not close within 15 s (is Redis gone?); exiting anyway");
        clearTimeout(timer);
      }
      if (redis) await redis.stop();
      lock.release();
      process.exit(exitCode);
    })();
    return shuttingDown;
  };
  process.on("SIGINT", () => void shutdown("SIGINT", 0));
  process.on("SIGTERM", () => void shutdown("SIGTERM", 0));

  try {
    const found = await findRedis(config);
    redis = found.privateRedis;
    const { redisUrl } = found;
    const port = config.port === 0 ? await freePort(config.host) : config.port;
    web = await startWebServer({
      root: options.root,
      dataDir: config.dataDir,
      host: config.host,
      port,
      redisUrl,
      allowedHosts: config.allowedHosts,
      version: options.version,
      baseImage: config.baseImage,
      sessionMaxAgeMs: config.sessionDays * 24 * 3600_000,
      log,
    }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
        throw new Error(
          `Port ${port} on ${config.host} is already in use. Pass --port with another number, or stop the program using it.`,
        );
      throw error;
    });
    if (config.worker) {
      worker = startWorkerChild({ cliPath: options.cliPath, config, redisUrl });
      worker.once("exit", (code, signal) => {
        if (!shuttingDown)
          log(
            `worker exited unexpectedly (${signal ?? `code ${String(code)}`}); the dashboard keeps running, start another with \`invariant-web worker --redis-url ${redactRedisUrl(redisUrl)}\``,
          );
      });
    }
    const link = `${web.url}/?token=${web.adminToken}`;
    lock.update({ url: web.url });
    process.stdout.write(`invariant-web ${options.version} is running at ${link}\n`);
    if (config.open) openBrowser(web.signInUrl());
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    await shutdown("startup failed", 1);
  }
}
