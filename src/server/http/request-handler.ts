import type http from "node:http";
import { nodeHTTPRequestHandler } from "@trpc/server/adapters/node-http";
import {
  isAllowedHost,
  isAllowedOrigin,
  tokenCookie,
  tokenFromHeaders,
  type GuardOptions,
} from "../access/request-guard";
import type { AppServices } from "../app-services";
import { appRouter } from "../trpc/app-router";
import { handleDownload } from "./downloads";
import { refusalPage } from "./unauthorized-page";

export interface RequestHandlerOptions {
  services: AppServices;
  guard: GuardOptions;
  /** host:port as users reach it, for the "Host not allowed" message. */
  displayAddress: string;
  /** Next.js's handler for pages and assets. */
  handleNext: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  log: (message: string) => void;
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
 * Every HTTP request, in order: Host and Origin checks, the health probe, a `?token=` link traded for
 * a cookie, the access token, then tRPC, downloads or Next.js. Errors become a 500 that leaks nothing.
 */
export function createRequestHandler(options: RequestHandlerOptions): Handler {
  const { services, guard } = options;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://placeholder");
    if (url.pathname.startsWith("/socket.io/")) return; // socket.io answers these itself
    const wantsJson = url.pathname.startsWith("/api/");
    if (!isAllowedHost(req.headers.host, guard)) {
      const message = `This server answers only to ${options.displayAddress} and localhost. Set INVARIANT_ALLOWED_HOSTS to add a name.`;
      return refuse(res, 421, "Host not allowed", message, wantsJson);
    }
    if (!isAllowedOrigin(req.headers.origin, guard))
      return refuse(res, 403, "Cross-origin request refused", "Requests from other sites are not accepted.", wantsJson);
    if (url.pathname === "/api/health") {
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Cache-Control", "no-store");
      res.end(JSON.stringify({ status: "ok" }));
      return;
    }
    const queryToken = url.searchParams.get("token");
    if (queryToken !== null && isRead(req)) return tradeLinkForCookie({ res, url, queryToken, wantsJson });
    const { cookie, authorization } = req.headers;
    const identity = await services.access.identify(tokenFromHeaders({ cookie, authorization }));
    if (!identity) {
      const message =
        "Open the URL that invariant-web printed when it started (it carries the access token), or ask its admin for a viewer link.";
      return refuse(res, 401, "Access token required", message, wantsJson);
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
      isRead(req) &&
      (await handleDownload({ pathname: url.pathname, searchParams: url.searchParams, services, res }))
    )
      return;
    await options.handleNext(req, res);
  }

  /** A link carrying `?token=`: set the cookie and redirect to the same address without the token. */
  async function tradeLinkForCookie(link: {
    res: http.ServerResponse;
    url: URL;
    queryToken: string;
    wantsJson: boolean;
  }) {
    const { res, url, queryToken } = link;
    if (!(await services.access.identify(queryToken))) {
      const message = "The access link is wrong or was revoked. Ask the person who runs invariant-web for a new link.";
      return refuse(res, 401, "This link is not valid", message, link.wantsJson);
    }
    url.searchParams.delete("token");
    res.statusCode = 303;
    res.setHeader("Set-Cookie", tokenCookie(queryToken));
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Location", `${url.pathname}${url.search}`);
    res.end();
  }

  return async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      options.log(
        `http ${req.method ?? "?"} ${req.url ?? "?"}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      if (!res.headersSent)
        refuse(res, 500, "Something went wrong", "The server hit an unexpected error; details are in its log.", true);
      else res.end();
    }
  };
}
