import { PROVIDER_INFO } from "../shared/harness-kinds";
import { removeStoredApiKey } from "../server/core/credentials/stored-api-key";
import { formatModelAccess, providerAccessOf } from "./model-access-output";
import type { CliConfig } from "./config";

/**
 * `invariant-web logout [--provider openai|anthropic|google]`: removes that provider's key stored in the
 * data dir (default OpenAI; the host's Codex sign-in and environment variables are left alone).
 */
export function runLogoutCommand(config: CliConfig): number {
  const provider = config.provider ?? "openai";
  const { label } = PROVIDER_INFO[provider];
  const removed = removeStoredApiKey(config.dataDir, provider);
  process.stderr.write(
    `${removed ? `Removed the stored ${label} API key.` : `No ${label} API key was stored.`} Model access now:\n` +
      formatModelAccess(providerAccessOf(config)),
  );
  return 0;
}
