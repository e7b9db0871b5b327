import { z } from "zod";

/**
 * The environment's Anthropic and Google access: ANTHROPIC_API_KEY and GEMINI_API_KEY (GOOGLE_API_KEY its
 * alias), and where their requests go (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL: the CLIs' own variables).
 */
export const PROVIDER_ENV_SHAPE = {
  ANTHROPIC_API_KEY: z.string().optional(),
  GEMINI_API_KEY: z.string().optional(),
  GOOGLE_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.url({ error: "ANTHROPIC_BASE_URL must be a URL such as https://api.anthropic.com" }).optional(),
  GOOGLE_GEMINI_BASE_URL: z
    .url({ error: "GOOGLE_GEMINI_BASE_URL must be a URL such as https://generativelanguage.googleapis.com" })
    .optional(),
};
type ProviderEnv = { [K in keyof typeof PROVIDER_ENV_SHAPE]?: string | undefined };

/** What the gateway takes from them, present only when set (an empty key is no key). */
export type ProviderKeys = {
  anthropicApiKey?: string;
  googleApiKey?: string;
  anthropicBaseUrl?: string;
  googleBaseUrl?: string;
};

export function providerKeysOf(env: ProviderEnv): ProviderKeys {
  const anthropic = env.ANTHROPIC_API_KEY?.trim();
  const google = env.GEMINI_API_KEY?.trim() || env.GOOGLE_API_KEY?.trim();
  return {
    ...(anthropic ? { anthropicApiKey: anthropic } : {}),
    ...(google ? { googleApiKey: google } : {}),
    ...(env.ANTHROPIC_BASE_URL ? { anthropicBaseUrl: env.ANTHROPIC_BASE_URL } : {}),
    ...(env.GOOGLE_GEMINI_BASE_URL ? { googleBaseUrl: env.GOOGLE_GEMINI_BASE_URL } : {}),
  };
}
