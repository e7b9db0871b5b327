import { readCodexSignIn } from "./codex-auth-file";
import { storedKeyInfo } from "./stored-api-key";
import type { ModelAccessView } from "../../../shared/setup-schemas";

/** Where invariant-web looks for model access, as the web process knows it (no secret is read here but auth.json's kind). */
export interface ModelAccessOptions {
  dataDir: string;
  /** OPENAI_API_KEY is set in the environment invariant-web started in. */
  environmentKey: boolean;
  codexHome: string;
  /** ANTHROPIC_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY) is set there. */
  environmentKeys?: { anthropic?: boolean; google?: boolean };
}

/** What the web process knows of model access besides the data dir (the launcher's configuration). */
export type ModelAccessSettings = Omit<ModelAccessOptions, "dataDir">;

/**
 * What the model gateway will use, in its order (OPENAI_API_KEY, the stored key, the host's Codex
 * sign-in), described without any secret: safe for any page, viewers included.
 */
export function describeModelAccess(options: ModelAccessOptions): ModelAccessView {
  const stored = storedKeyInfo(options.dataDir);
  const base = {
    storedKeyAt: stored?.storedAt ?? null,
    environmentKey: options.environmentKey,
    codexHome: options.codexHome,
  };
  if (options.environmentKey)
    return {
      ...base,
      source: "environment",
      summary: `OPENAI_API_KEY from the environment invariant-web was started in${stored ? " (it wins over the stored key)" : ""}.`,
    };
  if (stored) return { ...base, source: "stored-key", summary: "The API key stored in the data dir." };
  const signIn = readCodexSignIn(options.codexHome);
  if (signIn.kind === "api-key")
    return { ...base, source: "codex-api-key", summary: `The API key of the host's Codex sign-in (${signIn.file}).` };
  if (signIn.kind === "chatgpt")
    return {
      ...base,
      source: "codex-chatgpt",
      summary: `The ChatGPT account the host's Codex is signed in with (${signIn.file}); its access token is refreshed when it expires.`,
    };
  return {
    ...base,
    source: "none",
    summary: "No model access: no API key is stored, OPENAI_API_KEY is not set and the host's Codex is not signed in.",
  };
}
