import { redactRedisUrl } from "../server/core/redis/connection";

/** A word as a POSIX shell reads it: as is when plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command that starts a worker by hand for this dashboard, with every flag it needs: without
 * --data-dir a worker cannot find the snapshots and workspaces of this data dir. A password in the
 * Redis URL is masked (logs are readable by viewers), and the hint says so.
 */
export function workerHint(options: { dataDir: string; redisUrl: string }): string {
  const url = redactRedisUrl(options.redisUrl);
  const command = `invariant-web worker --data-dir ${shellWord(options.dataDir)} --redis-url ${shellWord(url)}`;
  return url === options.redisUrl ? command : `${command} (with the Redis password in place of ***)`;
}
