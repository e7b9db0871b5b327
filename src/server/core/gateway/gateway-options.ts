import { AppError } from "../errors/app-error";
import { notSignedInMessage, providerApiKey, type KeyOnlyProvider } from "../credentials/provider-access";
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
  /** ANTHROPIC_API_KEY as read in src/cli/config.ts (absent: the key stored in the data dir, if any). */
  anthropicApiKey?: string;
  /** GEMINI_API_KEY (or GOOGLE_API_KEY) as read in src/cli/config.ts (absent: the stored key, if any). */
  googleApiKey?: string;
  /** Where Anthropic's and Google's requests go (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL; default the providers'). */
  anthropicBaseUrl?: string;
  googleBaseUrl?: string;
}

/**
 * Anthropic's or Google's key for a request: the environment variable (as config.ts read it), else the
 * key stored in the data dir (`invariant-web login --provider …`, the Setup page); none: a
 * PRECONDITION_FAILED AppError saying how to sign in, which the gateway answers 401.
 */
function providerCredential(options: { config: ModelAccessConfig; dataDir: string }, provider: KeyOnlyProvider) {
  const { config } = options;
  const key = providerApiKey({
    provider,
    environmentKey: provider === "anthropic" ? config.anthropicApiKey : config.googleApiKey,
    dataDir: options.dataDir,
  });
  if (!key) throw new AppError({ code: "PRECONDITION_FAILED", message: notSignedInMessage(provider, options.dataDir) });
  return { kind: "api-key" as const, apiKey: key.apiKey, source: key.source };
}

/**
 * A gateway's upstream and credential options: the credential is looked up per request — OpenAI's
 * from OPENAI_API_KEY, the key stored in the data dir, the host Codex's sign-in (refreshed when it
 * expires); Anthropic's and Google's from ANTHROPIC_API_KEY / GEMINI_API_KEY (GOOGLE_API_KEY), then the
 * key stored for the provider. The workers' gateways and the web process's (terminal sessions) use the same.
 */
export function modelAccessOptions(options: {
  config: ModelAccessConfig;
  dataDir: string;
  log: (line: string) => void;
}): Pick<
  ModelGatewayOptions,
  "upstreamBaseUrl" | "upstreams" | "chatgptBaseUrl" | "credential" | "afterUnauthorized" | "extraSecrets"
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
    upstreams: {
      ...(config.anthropicBaseUrl ? { anthropic: config.anthropicBaseUrl } : {}),
      ...(config.googleBaseUrl ? { google: config.googleBaseUrl } : {}),
    },
    ...(config.chatgptBaseUrl ? { chatgptBaseUrl: config.chatgptBaseUrl } : {}),
    credential: (provider) => (provider === "openai" ? sources.current() : providerCredential(options, provider)),
    afterUnauthorized: (used) => sources.afterUnauthorized(used),
    extraSecrets: () => sources.extraSecrets(),
  };
}
