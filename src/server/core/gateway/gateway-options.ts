import { createCredentialSources } from "./gateway-credentials";
import type { ModelGatewayOptions } from "./model-gateway";

/** Where a gateway's model access comes from (the launcher's and the worker's configuration). */
export interface ModelAccessConfig {
  openaiApiKey: string | null;
  codexHome: string;
  upstreamBaseUrl: string;
  /** Where a ChatGPT sign-in's requests go (INVARIANT_CHATGPT_BASE_URL; default Codex's endpoint). */
  chatgptBaseUrl?: string;
  /** Where a ChatGPT sign-in's refresh token is exchanged (INVARIANT_CHATGPT_TOKEN_URL). */
  chatgptTokenUrl?: string;
}

/**
 * A gateway's upstream and credential options: the credential is looked up per request
 * (OPENAI_API_KEY, the key stored in the data dir, the host Codex's sign-in, refreshed when it
 * expires). The workers' gateways and the web process's (terminal sessions) use the same.
 */
export function modelAccessOptions(options: {
  config: ModelAccessConfig;
  dataDir: string;
  log: (line: string) => void;
}): Pick<
  ModelGatewayOptions,
  "upstreamBaseUrl" | "chatgptBaseUrl" | "credential" | "afterUnauthorized" | "extraSecrets"
> {
  const { config } = options;
  const sources = createCredentialSources({
    openaiApiKey: config.openaiApiKey,
    dataDir: options.dataDir,
    codexHome: config.codexHome,
    ...(config.chatgptTokenUrl ? { tokenUrl: config.chatgptTokenUrl } : {}),
    log: options.log,
  });
  return {
    upstreamBaseUrl: config.upstreamBaseUrl,
    ...(config.chatgptBaseUrl ? { chatgptBaseUrl: config.chatgptBaseUrl } : {}),
    credential: () => sources.current(),
    afterUnauthorized: (used) => sources.afterUnauthorized(used),
    extraSecrets: () => sources.extraSecrets(),
  };
}
