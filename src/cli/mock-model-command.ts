import path from "node:path";
import type { CliConfig } from "./config";
import { listMockScripts } from "../server/core/mock-model/mock-script";
import { startMockModel } from "../server/core/mock-model/mock-model-server";

/**
 * `invariant-web mock-model`: serves the scripted Responses API until SIGINT/SIGTERM. Prints the base
 * URL on stdout (one line) so scripts can read it; everything else goes to stderr.
 */
export async function runMockModelCommand(options: { config: CliConfig; root: string }): Promise<void> {
  const scriptsDir = options.config.scriptsDir ?? path.join(options.root, "mock-scripts");
  const names = listMockScripts(scriptsDir);
  const server = await startMockModel({ scriptsDir, host: options.config.host, port: options.config.port });
  process.stdout.write(`${server.url}\n`);
  process.stderr.write(
    `[invariant-web] mock model at ${server.url}/responses; scripts in ${scriptsDir}: ${names.join(", ") || "none"}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
}
