import fs from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { connectDashboardBackend } from "../server/web/mcp/dashboard-backend";
import { createMcpServer } from "../server/web/mcp/mcp-server";
import { dataDirPaths } from "../server/core/storage/data-dir";
import { classifyError, CliFailure } from "../shared/automation-errors";
import type { CliConfig } from "./config";
import { UsageError } from "./usage-error";

/** The token `mcp` uses: --token-file's, INVARIANT_TOKEN, or null for the data dir's admin token. */
function tokenOf(config: CliConfig): string | null {
  const { file, value } = config.accessToken;
  if (file && value) throw new UsageError("give the token once: --token-file FILE or INVARIANT_TOKEN, not both.");
  if (!file) return value;
  try {
    const token = fs.readFileSync(file, "utf8").trim();
    if (!token) throw new Error("the file is empty");
    return token;
  } catch (error) {
    throw new UsageError(
      `cannot read the token from ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * `invariant-web mcp`: an MCP server on stdin/stdout that drives the running dashboard of the data dir,
 * as the other workflow commands do (its URL from launcher.json; the admin token, or a viewer link's
 * token from --token-file / INVARIANT_TOKEN, which gives the read-only tools only). stdout is the
 * protocol: everything for people goes to stderr. Ends when the client closes stdin.
 */
export async function runMcpCommand(options: { config: CliConfig; version: string }): Promise<number> {
  const { config } = options;
  const say = (text: string) => process.stderr.write(`invariant-web mcp: ${text}\n`);
  let backend;
  try {
    const [{ runningLauncher }, { connectDashboard }] = await Promise.all([
      import("./database-access"),
      import("./dashboard-client"),
    ]);
    if (runningLauncher(config.dataDir) === null)
      throw new CliFailure(
        `invariant-web is not running for ${config.dataDir}. Start it first (invariant-web --data-dir ${config.dataDir}); the MCP server drives the running dashboard.`,
      );
    const token = tokenOf(config) ?? fs.readFileSync(dataDirPaths(config.dataDir).accessTokenFile, "utf8").trim();
    const { url } = connectDashboard(config.dataDir, { token });
    backend = await connectDashboardBackend({ url, token });
  } catch (error) {
    const problem = classifyError(error);
    say(problem.message);
    return problem.exitCode;
  }
  const server = createMcpServer({ backend, version: options.version });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  say(
    `serving ${backend.dashboardUrl} as ${backend.role}${backend.role === "viewer" ? " (read-only tools)" : ""} on stdio`,
  );
  await closed;
  await server.close();
  return 0;
}
