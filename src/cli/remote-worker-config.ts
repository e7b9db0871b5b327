import path from "node:path";

/** `worker --dashboard-url`: a worker on another host, and where its token comes from (docs/scaling.md). */
export interface RemoteWorkerConfig {
  dashboardUrl: string;
  tokenFile: string | null;
  token: string | null;
}

/** The dashboard a worker on another host talks to, and where its token comes from. */
export function remoteWorker(given: {
  url: string | undefined;
  tokenFile: string | undefined;
  token: string | undefined;
}): { value: RemoteWorkerConfig | null } | { error: string } {
  if (given.url === undefined) return { value: null };
  let url: URL;
  try {
    url = new URL(given.url);
  } catch {
    return {
      error: `--dashboard-url must be the dashboard's URL, such as http://build-host:4317; got "${given.url.slice(0, 80)}".`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { error: `--dashboard-url must be an http:// or https:// URL; got "${given.url.slice(0, 80)}".` };
  if (url.search || url.username)
    return {
      error:
        "--dashboard-url is the dashboard's address only: no ?token= or user; the worker token goes in --worker-token-file.",
    };
  if (!given.tokenFile && !given.token)
    return {
      error:
        "A worker with --dashboard-url needs its worker token: --worker-token-file FILE (or INVARIANT_WORKER_TOKEN). Create one on the dashboard's System page.",
    };
  return {
    value: {
      dashboardUrl: url.origin + url.pathname.replace(/\/+$/, ""),
      tokenFile: given.tokenFile ? path.resolve(given.tokenFile) : null,
      token: given.token?.trim() ?? null,
    },
  };
}
