import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppServices } from "../../src/server/web/wiring/app-services";
import type { Db } from "../../src/server/core/db/client";
import { createRequestHandler } from "../../src/server/web/http/request-handler";
import { openWebCore } from "../../src/server/web/wiring/web-core";
import { REPO_ROOT, tempDir } from "./temp";

export const ADMIN_TOKEN = "a_httpadmintokenhttpadmintoken0000";

/** The web core (real SQLite, real Redis) behind the product's request handler on a loopback port; pages answer "page". */
export interface HttpHarness {
  base: string;
  port: number;
  db: Db;
  dataDir: string;
  services: AppServices;
  logs: string[];
  close(): Promise<void>;
}

export async function startHttpHarness(options: {
  redisUrl: string;
  /** What Next.js would do for a page; the default answers 200 "page". */
  handleNext?: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  /** Replaces the worker services (a test's own limits, image fetcher or model access). */
  workers?: (core: { db: Db; dataDir: string }) => AppServices["workers"];
}): Promise<HttpHarness> {
  const dataDir = tempDir("http");
  const core = await openWebCore({
    root: REPO_ROOT,
    dataDir,
    redisUrl: options.redisUrl,
    adminToken: ADMIN_TOKEN,
    publicUrl: "http://127.0.0.1:1",
    version: "test",
  });
  if (options.workers) {
    const own = options.workers({ db: core.db, dataDir });
    const closeCore = core.close.bind(core);
    (core.services as { workers: AppServices["workers"] }).workers = own;
    core.close = async () => {
      await (own as { close?: () => Promise<void> }).close?.();
      await closeCore();
    };
  }
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const logs: string[] = [];
  const handler = createRequestHandler({
    services: core.services,
    guard: { bindHost: "127.0.0.1", port, allowedHosts: [] },
    displayAddress: `127.0.0.1:${port}`,
    handleNext:
      options.handleNext ??
      ((_req, res) => {
        res.setHeader("Content-Type", "text/plain");
        res.end("page");
        return Promise.resolve();
      }),
    log: (message) => logs.push(message),
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res));
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    db: core.db,
    dataDir,
    services: core.services,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    },
  };
}

/** A raw request: the path is sent exactly as given (fetch would normalise it). */
export function rawRequest(options: {
  port: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: options.port,
        path: options.path,
        method: options.method ?? "GET",
        headers: options.headers,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** The `name=value` part of a Set-Cookie header for this cookie name, or null. */
export function cookieFrom(setCookie: string | string[] | undefined, name: string): string | null {
  const all = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const found = all.find((cookie) => cookie.startsWith(`${name}=`));
  return found ? (found.split(";")[0] ?? null) : null;
}
