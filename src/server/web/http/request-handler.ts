import type http from "node:http";
import { credentialsFromHeaders, isAllowedHost, isAllowedOrigin, type GuardOptions } from "../access/request-guard";
import type { AppServices } from "../wiring/app-services";
import { handleDownload } from "./downloads";
import { handleMcp } from "./mcp-endpoint";
import { routeMissingPage } from "./missing-page";
import { setSecurityHeaders } from "./security-headers";
import { isSignInLink, signInFromLink } from "./sign-in";
import { handleTrpc } from "./trpc-endpoint";
import { refusalPage } from "./unauthorized-page";
import { handleWorkerApi } from "./worker-endpoint";

export interface RequestHandlerOptions {
  services: AppServices;
  guard: GuardOptions;
  /** host:port as users reach it, for the "Host not allowed" message. */
  displayAddress: string;
  /** Next.js's handler for pages and assets. */
  handleNext: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  log: (message: string) => void;
  /** Next.js's dev server (its hot reload needs `unsafe-eval` in the page's CSP). */
  dev?: boolean;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

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

const isRead = (req: http.IncomingMessage) => req.method === "GET" || req.method === "HEAD";

/**
 * Every HTTP request, in order: security headers, Host and Origin checks, the health probe, a `?token=`
 * link or one-time `?code=` traded for a session cookie, the credentials, then tRPC, downloads or
 * Next.js. Errors become a 500 that leaks nothing; logs name the path, never the query string.
 */
export function createRequestHandler(options: RequestHandlerOptions): Handler {
  const { services, guard } = options;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://placeholder");
    if (url.pathname.startsWith("/socket.io/")) return; // socket.io answers these itself
    const wantsJson = url.pathname.startsWith("/api/") || url.pathname === "/mcp";
    setSecurityHeaders(res, { dev: options.dev ?? false });
    if (!isAllowedHost(req.headers.host, guard)) {
      const message = `This server answers only to ${options.displayAddress} and localhost. Set INVARIANT_ALLOWED_HOSTS to add a name.`;
      return refuse(res, 421, "Host not allowed", message, wantsJson);
    }
    if (!isAllowedOrigin(req.headers.origin, guard))
      return refuse(res, 403, "Cross-origin request refused", "Requests from other sites are not accepted.", wantsJson);
    if (url.pathname === "/api/health") {
      // no credentials needed: it names no project, only whether the parts are up (503 when degraded)
      const health = await services.system.health();
      res.statusCode = health.status === "ok" ? 200 : 503;
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Cache-Control", "no-store");
      res.end(JSON.stringify(health));
      return;
    }
    if (isSignInLink(req, url)) {
      if (await signInFromLink({ access: services.access, req, res, url })) return;
      const message =
        "The access link is wrong, was revoked or has expired, or this sign-in code was already used. Open the URL invariant-web printed, or ask its admin for a new link.";
      return refuse(res, 401, "This link is not valid", message, wantsJson);
    }
    // workers on other hosts: their own tokens, their own API, nothing else
    if (await handleWorkerApi({ req, res, url, services, log: options.log })) return;
    const identity = await services.access.identify(credentialsFromHeaders(req.headers));
    if (!identity) {
      const message =
        "Open the URL that invariant-web printed when it started (it carries the access token), or ask its admin for a viewer link.";
      return refuse(res, 401, "Access token required", message, wantsJson);
    }
    if (url.pathname.startsWith("/api/trpc/") || url.pathname === "/api/trpc")
      return handleTrpc({ req, res, url, identity, services, log: options.log });
    // the MCP server over streamable HTTP (docs/automation.md "MCP server"): the same tokens as tRPC
    if (url.pathname === "/mcp") return handleMcp({ req, res, identity, services, log: options.log });
    if (
      isRead(req) &&
      (await handleDownload({ pathname: url.pathname, searchParams: url.searchParams, services, res }))
    )
      return;
    await routeMissingPage({ req, pathname: url.pathname, pages: services.pages });
    await options.handleNext(req, res);
  }

  return async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      const path = (req.url ?? "?").split("?")[0];
      options.log(`http ${req.method ?? "?"} ${path}: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent)
        refuse(res, 500, "Something went wrong", "The server hit an unexpected error; details are in its log.", true);
      else res.end();
    }
  };
}
