import { describeModelAccess } from "../server/core/credentials/model-access";
import { removeStoredApiKey } from "../server/core/credentials/stored-api-key";
import type { CliConfig } from "./config";

/** `invariant-web logout`: removes the API key stored in the data dir (the host's Codex sign-in is left alone). */
export function runLogoutCommand(config: CliConfig): number {
  const removed = removeStoredApiKey(config.dataDir);
  const access = describeModelAccess({
    dataDir: config.dataDir,
    environmentKey: config.modelGateway.openaiApiKey !== null,
    codexHome: config.modelGateway.codexHome,
  });
  process.stderr.write(
    `${removed ? "Removed the stored API key." : "No API key was stored."} Model access now: ${access.summary}\n`,
  );
  return 0;
}
