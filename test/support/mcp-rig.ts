import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { build } from "esbuild";
import { createRequestHandler } from "../../src/server/web/http/request-handler";
import { dataDirPaths } from "../../src/server/core/storage/data-dir";
import type { AppServices } from "../../src/server/web/wiring/app-services";
import { REPO_ROOT, tempDir } from "./temp";

/**
 * What the MCP tests run against: the product's HTTP handler on a loopback port in front of a study
 * stack's web side, with the files a running launcher leaves in the data dir (so `invariant-web mcp`
 * finds it), and the CLI bundled from source as scripts/build.mjs bundles dist/cli.mjs.
 */
export const ADMIN_TOKEN = "a_admintokenadmintokenadmintoken00"; // openStudyWeb's

export async function serveDashboard(options: { services: AppServices; dataDir: string }) {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const handler = createRequestHandler({
    services: options.services,
    guard: { bindHost: "127.0.0.1", port, allowedHosts: [] },
    displayAddress: `127.0.0.1:${port}`,
    handleNext: (_req, res) => Promise.resolve(void res.end("page")),
    log: () => undefined,
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res));
  const url = `http://127.0.0.1:${port}`;
  const paths = dataDirPaths(options.dataDir);
  // a live pid other than this process's stands for the launcher
  fs.writeFileSync(paths.launcherFile, JSON.stringify({ pid: process.ppid, url }));
  fs.writeFileSync(paths.accessTokenFile, `${ADMIN_TOKEN}\n`);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The CLI bundled from the sources (dist/ may be older), beside node_modules so its packages resolve. */
export async function bundleCli(): Promise<{ bin: string; remove: () => void }> {
  const outdir = path.join(REPO_ROOT, "node_modules", ".cache", `mcp-cli-${process.pid}`);
  await build({
    entryPoints: { cli: path.join(REPO_ROOT, "src", "cli", "main.ts") },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  return { bin: path.join(outdir, "cli.mjs"), remove: () => fs.rmSync(outdir, { recursive: true, force: true }) };
}

export interface McpConnection {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/** `invariant-web mcp --data-dir DIR` as an MCP client starts it: a child on stdio. */
export async function stdioConnection(options: {
  bin: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.bin, "mcp", "--data-dir", options.dataDir],
    env: { PATH: process.env.PATH ?? "", HOME: tempDir("mcp-home"), NODE_ENV: "test", ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "invariant-web-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The dashboard's /mcp over streamable HTTP with a bearer token. */
export async function httpConnection(options: { url: string; token: string }): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(`${options.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  });
  const client = new Client({ name: "invariant-web-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => "", close: () => client.close() };
}

export interface ToolError {
  kind: string;
  exitCode: number;
  code: string | null;
  message: string;
  field: string | null;
  fieldErrors: Record<string, string[]> | null;
}

/** Calls a tool; its structured answer, or its error (the CLI's error shape) when it is a tool error. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { timeout?: number; onprogress?: () => void } = {},
): Promise<{ ok: true; data: Record<string, unknown>; text: string } | { ok: false; error: ToolError; text: string }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: options.timeout ?? 60_000,
    ...(options.onprogress ? { onprogress: options.onprogress } : {}),
  })) as CallToolResult;
  const text = result.content.map((item) => (item.type === "text" ? item.text : "")).join("");
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  if (result.isError) return { ok: false, error: structured.error as ToolError, text };
  return { ok: true, data: structured, text };
}
