import type http from "node:http";
import { nodeHTTPRequestHandler } from "@trpc/server/adapters/node-http";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { MAX_TEST_UPLOAD_TOTAL_BYTES } from "../../../shared/study-inputs";
import type { Identity } from "../../../shared/roles";
import type { AppServices } from "../wiring/app-services";
import { appRouter } from "../trpc/app-router";

/**
 * The largest tRPC request body: a study's uploads (base64, a third larger) plus room for the rest of
 * the form. Anything bigger is refused with 413 before it is buffered.
 */
export const MAX_TRPC_BODY_BYTES = Math.ceil(MAX_TEST_UPLOAD_TOTAL_BYTES / 3) * 4 + 2 * 1024 * 1024;

const VIEWER_MESSAGE = "This is a read-only viewer link: changes need the admin's access link.";

/** A tRPC-shaped error (one per procedure of a batch) sent without reading the body; the connection then closes. */
function refuseEarly(options: {
  res: http.ServerResponse;
  url: URL;
  procedures: string[];
  status: number;
  code: "FORBIDDEN" | "PAYLOAD_TOO_LARGE";
  message: string;
}): void {
  const { res, status, code, message } = options;
  const error = (path: string) => ({
    error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: status, path } },
  });
  const batch = options.url.searchParams.get("batch") === "1";
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Connection", "close");
  res.end(JSON.stringify(batch ? options.procedures.map(error) : error(options.procedures[0] ?? "")));
}

/**
 * tRPC over HTTP. A POST is a mutation: a viewer's is refused before its body is read (the role gate
 * in init.ts refuses it again, for every other caller), and no body may exceed MAX_TRPC_BODY_BYTES.
 */
export async function handleTrpc(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  identity: Identity;
  services: AppServices;
  log: (message: string) => void;
}): Promise<void> {
  const { req, res, url, identity, services } = options;
  const path = url.pathname.slice("/api/trpc/".length);
  const procedures = path.split(",");
  if (req.method === "POST" && identity.role !== "admin")
    return refuseEarly({ res, url, procedures, status: 403, code: "FORBIDDEN", message: VIEWER_MESSAGE });
  if (Number(req.headers["content-length"] ?? 0) > MAX_TRPC_BODY_BYTES)
    return refuseEarly({
      res,
      url,
      procedures,
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: `The request is larger than ${Math.round(MAX_TRPC_BODY_BYTES / 1024 / 1024)} MiB.`,
    });
  await nodeHTTPRequestHandler({
    router: appRouter,
    req,
    res,
    path,
    maxBodySize: MAX_TRPC_BODY_BYTES,
    createContext: () => ({ identity, services }),
    onError: ({ error, path: procedure }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") options.log(`trpc ${procedure ?? "?"}: ${error.message}`);
    },
  });
}
