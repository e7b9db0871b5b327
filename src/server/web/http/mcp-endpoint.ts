import type http from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { localBackend } from "../mcp/local-backend";
import { createMcpServer } from "../mcp/mcp-server";
import type { Identity } from "../../../shared/roles";
import type { AppServices } from "../wiring/app-services";
import { MAX_TRPC_BODY_BYTES } from "./trpc-endpoint";

/** A JSON-RPC error without a request id (the transport's own shape), and the connection closes. */
function refuse(res: http.ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Connection", "close");
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The body, at most `limit` bytes (null when bigger: the rest is not read). */
async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The MCP server over streamable HTTP at /mcp, stateless as the SDK recommends for a server without
 * per-client state: every POST gets its own server and transport, with the request's identity (the
 * admin token or a viewer link's, checked before this like every tRPC request's). GET (a standalone
 * event stream) and DELETE (ending a session) have nothing to do without sessions: 405. Bodies are
 * limited like tRPC's (a study with uploaded test files fits).
 */
export async function handleMcp(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  identity: Identity;
  services: AppServices;
  log: (message: string) => void;
}): Promise<void> {
  const { req, res } = options;
  if (req.method !== "POST") {
    res.setHeader("Allow", "POST");
    return refuse(res, 405, "This MCP server is stateless: send each JSON-RPC message as a POST to /mcp.");
  }
  const tooLarge = `The request is larger than ${Math.round(MAX_TRPC_BODY_BYTES / 1024 / 1024)} MiB.`;
  if (Number(req.headers["content-length"] ?? 0) > MAX_TRPC_BODY_BYTES) return refuse(res, 413, tooLarge);
  const body = await readBody(req, MAX_TRPC_BODY_BYTES);
  if (body === null) return refuse(res, 413, tooLarge);
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    res.statusCode = 400;
    res.setHeader("Content-Type", "application/json");
    res.end(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error: the body is not JSON." },
        id: null,
      }),
    );
    return;
  }
  const backend = localBackend({ services: options.services, identity: options.identity });
  const server = createMcpServer({ backend, version: options.services.version });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  transport.onerror = (error) => options.log(`mcp: ${error.message}`);
  await server.connect(transport);
  await transport.handleRequest(req, res, message);
}
