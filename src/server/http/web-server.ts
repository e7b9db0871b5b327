import http from "node:http";
import path from "node:path";
import { nodeHTTPRequestHandler } from "@trpc/server/adapters/node-http";
import next from "next";
import { Server as SocketServer } from "socket.io";
import { subscribeSchema, serverToClient } from "../../shared/event-catalog";
import type { Identity } from "../../shared/roles";
import { loadOrCreateAccessToken } from "../access/access-token";
import {
  isAllowedHost,
  isAllowedOrigin,
  tokenCookie,
  tokenFromHeaders,
  type GuardOptions,
} from "../access/request-guard";
import { createAppServices } from "../app-services";
import { handleDownload } from "./downloads";
import { openDb } from "../db/client";
import { applyMigrations } from "../db/migrate";
import { createRecorder } from "../events/recorder";
import { connectRedis } from "../redis/connection";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { appRouter } from "../trpc/app-router";
import { refusalPage } from "./unauthorized-page";

export interface WebServerOptions {
  root: string;
  dataDir: string;
  host: string;
  port: number;
  redisUrl: string;
  allowedHosts: readonly string[];
  version: string;
  /** Global default base image for environments. */
  baseImage?: string;
  dev?: boolean;
  log: (message: string) => void;
}

export interface WebServer {
  /** Base URL without the token, e.g. http://127.0.0.1:4317 */
  url: string;
  adminToken: string;
  close(): Promise<void>;
}

function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

function refuse(res: http.ServerResponse, status: number, title: string, message: string, wantsJson: boolean): void {
  res.statusCode = status;
  res.setHeader("Cache-Control", "no-store");
  if (wantsJson) {
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ error: { status, title, message } }));
  } else {
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.end(refusalPage({ title, message }));
  }
}

/** The web process: the single database writer, hosting Next.js pages, tRPC, socket.io and the event recorder. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const databaseFile = path.join(options.dataDir, "invariant.db");
  const migrations = applyMigrations({ databaseFile, migrationsDir: path.join(options.root, "prisma", "migrations") });
  if (migrations.applied.length > 0) options.log(`database: applied ${migrations.applied.join(", ")}`);
  const db = await openDb({ file: databaseFile });
  const adminToken = loadOrCreateAccessToken({ dataDir: options.dataDir });

  const guard: GuardOptions = { bindHost: options.host, port: options.port, allowedHosts: options.allowedHosts };
  const httpServer = http.createServer();
  const io = new SocketServer(httpServer, {
    serveClient: false,
    path: "/socket.io",
    // refused at the handshake: a foreign Host (DNS rebinding) or a foreign Origin (cross-site)
    allowRequest: (req, callback) =>
      callback(null, isAllowedHost(req.headers.host, guard) && isAllowedOrigin(req.headers.origin, guard)),
  });
  const publicUrl = `http://${displayHost(options.host)}:${options.port}`;
  const services = createAppServices({
    db,
    redisUrl: options.redisUrl,
    dataDir: options.dataDir,
    adminToken,
    publicUrl,
    version: options.version,
    runtime: createDockerRuntime(),
    log: options.log,
    ...(options.baseImage ? { defaultBaseImage: options.baseImage } : {}),
    onViewerRevoked: (linkId) => {
      for (const socket of io.sockets.sockets.values()) {
        if ((socket.data as { identity?: Identity }).identity?.subject === linkId) socket.disconnect(true);
      }
    },
  });
  const recorder = createRecorder({
    redis: connectRedis({ url: options.redisUrl, name: "invariant-recorder" }),
    events: services.events,
    emit: (targets, event) => io.to(targets).emit(serverToClient.event, event),
    apply: (event, applyOptions) => services.recordEvent(event, applyOptions),
    log: options.log,
  });

  const nextApp = next({
    dev: options.dev ?? false,
    dir: options.root,
    hostname: displayHost(options.host),
    port: options.port,
    customServer: true,
  });
  await Promise.all([nextApp.prepare(), recorder.start()]);
  services.start();
  const handleNext = nextApp.getRequestHandler();

  io.use((socket, nextMiddleware) => {
    const req = socket.request;
    services.access
      .identify(tokenFromHeaders({ cookie: req.headers.cookie, authorization: req.headers.authorization }))
      .then((identity) => {
        if (!identity) {
          nextMiddleware(new Error("unauthorized: open the URL printed by invariant-web"));
          return;
        }
        (socket.data as { identity?: Identity }).identity = identity;
        nextMiddleware();
      })
      .catch((error: unknown) => nextMiddleware(error instanceof Error ? error : new Error(String(error))));
  });
  io.on("connection", (socket) => {
    socket.on("subscribe", (payload: unknown) => {
      const parsed = subscribeSchema.safeParse(payload);
      if (parsed.success) void socket.join(parsed.data.room);
    });
    socket.on("unsubscribe", (payload: unknown) => {
      const parsed = subscribeSchema.safeParse(payload);
      if (parsed.success) void socket.leave(parsed.data.room);
    });
  });

  async function handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://placeholder");
    if (url.pathname.startsWith("/socket.io/")) return; // socket.io answers these itself
    const wantsJson = url.pathname.startsWith("/api/");
    if (!isAllowedHost(req.headers.host, guard)) {
      refuse(
        res,
        421,
        "Host not allowed",
        `This server answers only to ${displayHost(options.host)}:${options.port} and localhost. Set INVARIANT_ALLOWED_HOSTS to add a name.`,
        wantsJson,
      );
      return;
    }
    if (!isAllowedOrigin(req.headers.origin, guard)) {
      refuse(res, 403, "Cross-origin request refused", "Requests from other sites are not accepted.", wantsJson);
      return;
    }
    if (url.pathname === "/api/health") {
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Cache-Control", "no-store");
      res.end(JSON.stringify({ status: "ok" }));
      return;
    }
    const queryToken = url.searchParams.get("token");
    if (queryToken !== null && (req.method === "GET" || req.method === "HEAD")) {
      const identity = await services.access.identify(queryToken);
      if (!identity) {
        refuse(
          res,
          401,
          "This link is not valid",
          "The access link is wrong or was revoked. Ask the person who runs invariant-web for a new link.",
          wantsJson,
        );
        return;
      }
      url.searchParams.delete("token");
      res.statusCode = 303;
      res.setHeader("Set-Cookie", tokenCookie(queryToken));
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Location", `${url.pathname}${url.search}`);
      res.end();
      return;
    }
    const identity = await services.access.identify(
      tokenFromHeaders({ cookie: req.headers.cookie, authorization: req.headers.authorization }),
    );
    if (!identity) {
      refuse(
        res,
        401,
        "Access token required",
        "Open the URL that invariant-web printed when it started (it carries the access token), or ask its admin for a viewer link.",
        wantsJson,
      );
      return;
    }
    if (url.pathname.startsWith("/api/trpc/") || url.pathname === "/api/trpc") {
      await nodeHTTPRequestHandler({
        router: appRouter,
        req,
        res,
        path: url.pathname.slice("/api/trpc/".length),
        createContext: () => ({ identity, services }),
        onError: ({ error, path: procedure }) => {
          if (error.code === "INTERNAL_SERVER_ERROR") options.log(`trpc ${procedure ?? "?"}: ${error.message}`);
        },
      });
      return;
    }
    if (
      (req.method === "GET" || req.method === "HEAD") &&
      (await handleDownload({ pathname: url.pathname, services, res }))
    )
      return;
    await handleNext(req, res);
  }

  httpServer.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    handleRequest(req, res).catch((error: unknown) => {
      options.log(
        `http ${req.method ?? "?"} ${req.url ?? "?"}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      if (!res.headersSent)
        refuse(res, 500, "Something went wrong", "The server hit an unexpected error; details are in its log.", true);
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, options.host, () => resolve());
  });

  return {
    url: publicUrl,
    adminToken,
    async close() {
      await new Promise<void>((resolve) => {
        void io.close(() => resolve());
        httpServer.closeAllConnections();
      });
      await recorder.stop();
      await services.close();
      await db.$disconnect();
      await nextApp.close();
    },
  };
}
