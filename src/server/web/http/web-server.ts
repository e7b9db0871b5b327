import type { ImageRegistry } from "../../core/runtime/registry-transfer";
import type { UploadLimits } from "../workers/upload-limits";
import http from "node:http";
import next from "next";
import type { GuardOptions } from "../access/request-guard";
import { openWebCore } from "../wiring/web-core";
import type { SupervisionSource } from "../system/health";
import { answerClientErrors } from "./client-errors";
import { createRequestHandler } from "./request-handler";
import { createSocketLayer } from "./socket-server";
import type { SessionsOptions } from "../wiring/session-wiring";
import type { ModelAccessSettings } from "../../core/credentials/model-access";

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
  /** Author and committer of Apply as a branch's commits. */
  branchIdentity?: { name: string; email: string };
  /** Terminal sessions' model gateway (upstream, credential), bridge scripts, host CA, idle stop. */
  sessions?: Partial<Pick<SessionsOptions, "gateway" | "bridgeDir" | "hostCaBundle" | "idleStopMs" | "workspaceKind">>;
  /** Where model access comes from besides the stored key (the Setup page shows it). */
  modelAccess?: ModelAccessSettings;
  dev?: boolean;
  /** How long a browser stays signed in; 30 days by default. */
  sessionMaxAgeMs?: number;
  log: (message: string) => void;
  /** The launcher's supervised children (private Redis, worker), for health. */
  supervision?: SupervisionSource;
  /** How often the garbage collector runs (default 1 h). */
  garbage?: { everyMs?: number };
  /** How large an upload a worker on another host may send (INVARIANT_WORKER_MAX_*_MIB). */
  workerUploadLimits?: Partial<UploadLimits>;
  /** The OCI registry images move through between hosts (null or absent: docker save over HTTP). */
  registry?: ImageRegistry | null;
}

export interface WebServer {
  /** Base URL without the token, e.g. http://127.0.0.1:4317 */
  url: string;
  adminToken: string;
  /** A one-time sign-in URL for a browser the launcher opens (the admin token stays out of its argv). */
  signInUrl(): string;
  close(): Promise<void>;
}

function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The web process's HTTP side: Next.js pages, tRPC, downloads and socket.io on one server, on top of
 * the web core (database, services, recorder: see web-core.ts).
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const guard: GuardOptions = { bindHost: options.host, port: options.port, allowedHosts: options.allowedHosts };
  const httpServer = http.createServer();
  answerClientErrors(httpServer);
  const sockets = createSocketLayer({ httpServer, guard });
  const publicUrl = `http://${displayHost(options.host)}:${options.port}`;
  const core = await openWebCore({
    root: options.root,
    dataDir: options.dataDir,
    redisUrl: options.redisUrl,
    publicUrl,
    version: options.version,
    log: options.log,
    ...(options.baseImage ? { baseImage: options.baseImage } : {}),
    ...(options.branchIdentity ? { branchIdentity: options.branchIdentity } : {}),
    ...(options.modelAccess ? { modelAccess: options.modelAccess } : {}),
    emit: sockets.emit,
    sessions: { ...options.sessions, output: sockets.terminalOutput, changed: sockets.sessionChanged },
    onViewerRevoked: sockets.disconnectSubject,
    ...(options.sessionMaxAgeMs ? { sessionMaxAgeMs: options.sessionMaxAgeMs } : {}),
    ...(options.supervision ? { supervision: options.supervision } : {}),
    ...(options.workerUploadLimits ? { workerUploadLimits: options.workerUploadLimits } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.garbage ? { garbage: options.garbage } : {}),
  });
  const nextApp = next({
    dev: options.dev ?? false,
    dir: options.root,
    hostname: displayHost(options.host),
    port: options.port,
    customServer: true,
  });
  // a start that fails half-way closes what it opened: no recorder or Redis connection keeps the process alive
  await Promise.all([nextApp.prepare(), core.start()]).catch(async (error: unknown) => {
    await core.close().catch(() => undefined);
    throw error;
  });
  sockets.authenticate(core.services.access, core.services.sessions);
  const handleRequest = createRequestHandler({
    services: core.services,
    guard,
    displayAddress: `${displayHost(options.host)}:${options.port}`,
    handleNext: nextApp.getRequestHandler(),
    log: options.log,
    dev: options.dev ?? false,
  });
  httpServer.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handleRequest(req, res));
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, options.host, () => resolve());
  }).catch(async (error: unknown) => {
    await Promise.all([core.close(), nextApp.close()]).catch(() => undefined);
    throw error;
  });

  return {
    url: publicUrl,
    adminToken: core.adminToken,
    signInUrl: () => `${publicUrl}/?code=${core.services.access.createLoginCode()}`,
    async close() {
      await sockets.close();
      await core.close();
      await nextApp.close();
    },
  };
}
