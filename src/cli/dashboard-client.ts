import fs from "node:fs";
import { createTRPCClient, httpLink } from "@trpc/client";
import { io, type Socket } from "socket.io-client";
import type { AppRouter } from "../server/web/trpc/app-router";
import { dataDirPaths } from "../server/core/storage/data-dir";

/**
 * CLI commands that change state go through the running dashboard (the web process is the only
 * database writer): its URL comes from <dataDir>/launcher.json, the admin token from <dataDir>/access-token
 * (or `token`: a viewer link's token, for `invariant-web mcp` with INVARIANT_TOKEN).
 */
export function connectDashboard(dataDir: string, options: { token?: string | null } = {}) {
  let url: string;
  try {
    const launcher = JSON.parse(fs.readFileSync(dataDirPaths(dataDir).launcherFile, "utf8")) as { url?: string };
    if (!launcher.url) throw new Error("starting");
    url = launcher.url;
  } catch {
    throw new Error(
      `invariant-web is not running for ${dataDir}. Start it first (invariant-web --data-dir ${dataDir}), then run this command again.`,
    );
  }
  const token = options.token ?? fs.readFileSync(dataDirPaths(dataDir).accessTokenFile, "utf8").trim();
  const headers = { authorization: `Bearer ${token}` };
  const api = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/api/trpc`, headers })] });
  return {
    url,
    api,
    /** A plain HTTP request to the dashboard with the token (downloads such as reports). */
    fetch: (pathname: string) => fetch(`${url}${pathname}`, { headers }),
    socket(): Socket {
      return io(url, { path: "/socket.io", transports: ["websocket"], extraHeaders: headers });
    },
  };
}
