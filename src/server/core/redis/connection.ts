import { Redis, type RedisOptions } from "ioredis";

/**
 * A Redis URL fit for logs and doctor output (which viewers can read): its password replaced by `***`.
 * Works on URLs that do not parse too (the credentials part before `@` is masked).
 */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) {
      parsed.password = "***";
      return parsed.toString();
    }
    return url;
  } catch {
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, "//$1:***@");
  }
}

/**
 * Redis locations are URLs: redis://host:port/db, rediss://..., or unix:///path/to/redis.sock
 * or unix:///path/to/redis.sock[?db=N] (the launcher's private Redis listens on a unix socket in the data dir).
 */
export function redisOptionsFromUrl(url: string): RedisOptions {
  if (url.startsWith("unix://")) {
    const [socketPath = "", query = ""] = url.slice("unix://".length).split("?");
    const db = new URLSearchParams(query).get("db");
    return { path: socketPath, ...(db ? { db: Number(db) } : {}) };
  }
  const parsed = new URL(url);
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new Error(
      `Unsupported Redis URL "${redactRedisUrl(url)}": use redis://host:port, rediss://host:port or unix:///path/to/redis.sock.`,
    );
  }
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * A connection suitable for BullMQ workers and blocking reads (no per-command retry limit: a command
 * waits while Redis is away). With `failFast`, a command fails after one reconnect attempt instead,
 * so a request that needs Redis during an outage is refused at once (see redis-errors.ts) rather than hanging.
 */
export function connectRedis(options: { url: string; name: string; failFast?: boolean }): Redis {
  const client = new Redis({
    ...redisOptionsFromUrl(options.url),
    connectionName: options.name,
    maxRetriesPerRequest: options.failFast ? 1 : null,
    lazyConnect: false,
  });
  // while Redis is down ioredis reports every reconnect attempt as an 'error' event ("[ioredis] Unhandled
  // error event" twice a second without a listener); commands fail or wait on their own, and health and
  // the launcher's supervisor say what is wrong in plain words
  client.on("error", () => undefined);
  return client;
}

/** Pings Redis once with a short timeout; resolves to the server version or throws a readable error. */
export async function probeRedis(options: { url: string; timeoutMs?: number }): Promise<{ version: string }> {
  const client = new Redis({
    ...redisOptionsFromUrl(options.url),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: options.timeoutMs ?? 2000,
    retryStrategy: () => null,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const info = await client.info("server");
    return { version: /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown" };
  } finally {
    client.disconnect();
  }
}
