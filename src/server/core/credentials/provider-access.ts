import { HARNESS_INFO, MODEL_PROVIDERS, PROVIDER_INFO, type ModelProvider } from "../../../shared/harness-kinds";
import { HARNESS_KINDS } from "../../../shared/vocabulary";
import type { HarnessAccessView, ProviderAccessView } from "../../../shared/setup-schemas";
import { describeModelAccess, type ModelAccessOptions } from "./model-access";
import { readStoredApiKey, storedKeyEnding, storedKeyInfo, storedKeyPaths } from "./stored-api-key";

/** The providers whose only credential is an API key (OpenAI also has the host's Codex sign-in). */
export type KeyOnlyProvider = Exclude<ModelProvider, "openai">;

/** The environment variables that set a provider's key, first one winning (GOOGLE_API_KEY is Google's own alias). */
export const KEY_VARIABLES: Record<ModelProvider, readonly string[]> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  google: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
};

export function keyVariableText(provider: ModelProvider): string {
  return KEY_VARIABLES[provider].join(" or ");
}

/** `invariant-web login --provider p` (without the flag for OpenAI, the default). */
export function loginCommandFor(provider: ModelProvider): string {
  return provider === "openai" ? "invariant-web login" : `invariant-web login --provider ${provider}`;
}

/** A provider's real API key and where it came from (never logged, never sent to a container). */
export interface ProviderKey {
  apiKey: string;
  /** The environment variable it was read from, or "stored key" (for messages; never the key itself). */
  source: string;
}

/**
 * The key the model gateway uses for an Anthropic or Google request, looked up for every request (so a key
 * stored or removed while invariant-web runs applies to the next one), in the order OpenAI's is: the
 * environment variable, then the key stored in the data dir. Null: not signed in.
 */
export function providerApiKey(options: {
  provider: KeyOnlyProvider;
  /** The environment variable's value as src/cli/config.ts read it (null or absent: not set). */
  environmentKey?: string | null;
  dataDir?: string | null;
}): ProviderKey | null {
  const fromEnv = options.environmentKey?.trim();
  if (fromEnv) return { apiKey: fromEnv, source: KEY_VARIABLES[options.provider][0]! };
  const stored = options.dataDir ? readStoredApiKey(options.dataDir, options.provider) : null;
  return stored ? { apiKey: stored, source: "stored key" } : null;
}

/** What the gateway answers (401) when a provider has no key: what is missing and how to add it. */
export function notSignedInMessage(provider: KeyOnlyProvider, dataDir: string | null | undefined): string {
  const { label } = PROVIDER_INFO[provider];
  const where = dataDir ? `no key is stored in ${storedKeyPaths(dataDir, provider).dir}` : "no key is stored";
  return (
    `No ${label} access: ${keyVariableText(provider)} is not set and ${where}. ` +
    `Store a key with \`${loginCommandFor(provider)}\` or on the Setup page, or set ${KEY_VARIABLES[provider][0]} where invariant-web starts.`
  );
}

function keyOnlyAccess(options: ModelAccessOptions, provider: KeyOnlyProvider): ProviderAccessView {
  const { label } = PROVIDER_INFO[provider];
  const stored = storedKeyInfo(options.dataDir, provider);
  const environmentKey = options.environmentKeys?.[provider] ?? false;
  const variable = keyVariableText(provider);
  const base = {
    provider,
    label,
    variable,
    environmentKey,
    storedKeyAt: stored?.storedAt ?? null,
    storedKeyEnding: stored ? storedKeyEnding(options.dataDir, provider) : null,
  };
  if (environmentKey)
    return {
      ...base,
      signedIn: true,
      source: "environment",
      summary: `${variable} from the environment invariant-web was started in${stored ? " (it wins over the stored key)" : ""}.`,
    };
  if (stored)
    return { ...base, signedIn: true, source: "stored-key", summary: `The ${label} API key stored in the data dir.` };
  return {
    ...base,
    signedIn: false,
    source: "none",
    summary: `No ${label} access: no key is stored and ${variable} is not set.`,
  };
}

/** Every provider's access, described without any secret (the stored key's last four characters at most). */
export function describeProviderAccess(options: ModelAccessOptions): ProviderAccessView[] {
  return MODEL_PROVIDERS.map((provider) => {
    if (provider !== "openai") return keyOnlyAccess(options, provider);
    const openai = describeModelAccess(options);
    return {
      provider,
      label: PROVIDER_INFO.openai.label,
      signedIn: openai.source !== "none",
      source: openai.source,
      summary: openai.summary,
      variable: keyVariableText(provider),
      environmentKey: openai.environmentKey,
      storedKeyAt: openai.storedKeyAt,
      storedKeyEnding: openai.storedKeyAt ? storedKeyEnding(options.dataDir, "openai") : null,
    };
  });
}

/** Which agent harnesses can run now: each needs its provider's access (`scripted:` models need none). */
export function harnessAccess(providers: readonly ProviderAccessView[]): HarnessAccessView[] {
  return HARNESS_KINDS.flatMap((kind) => {
    const provider = HARNESS_INFO[kind].provider;
    if (provider === null) return [];
    const usable = providers.some((view) => view.provider === provider && view.signedIn);
    return [{ kind, label: HARNESS_INFO[kind].label, provider, usable }];
  });
}

/** "Codex usable (OpenAI: …). Claude Code not usable: no Anthropic access." and so on, one sentence each. */
export function harnessAccessText(providers: readonly ProviderAccessView[]): string {
  const sentences = harnessAccess(providers).map((harness) => {
    const provider = PROVIDER_INFO[harness.provider].label;
    return harness.usable
      ? `${harness.label} usable (${provider} access).`
      : `${harness.label} not usable: no ${provider} access.`;
  });
  return [...sentences, "Models named scripted:<script> need no access."].join(" ");
}
