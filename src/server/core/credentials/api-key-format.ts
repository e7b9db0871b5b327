import { z } from "zod";
import { PROVIDER_INFO, type ModelProvider } from "../../../shared/harness-kinds";
import { AppError } from "../errors/app-error";

/**
 * What a pasted API key must look like for each provider, checked before anything is written. Keys are
 * not verified against the provider (that would send traffic out); only what is surely wrong is refused:
 * nothing, something too long to be a key, whitespace inside (a header value cannot hold it), or a key
 * with another provider's prefix (pasted into the wrong field).
 */
const MAX_KEY_LENGTH = 1000;

/** How each provider's keys start (for messages), and whether a key has that shape. */
const KEY_SHAPES: Record<ModelProvider, { prefix: string; matches: (key: string) => boolean }> = {
  anthropic: { prefix: "sk-ant-", matches: (key) => key.startsWith("sk-ant-") },
  google: { prefix: "AIza", matches: (key) => key.startsWith("AIza") },
  // OpenAI's keys (sk-, sk-proj-, sk-svcacct-) share the sk- of Anthropic's, which the check above takes first
  openai: { prefix: "sk-", matches: (key) => key.startsWith("sk-") && !key.startsWith("sk-ant-") },
};

/** "an Anthropic", "a Google" */
function withArticle(provider: ModelProvider): string {
  const label = PROVIDER_INFO[provider].label;
  return `${/^[AEIOU]/.test(label) ? "an" : "a"} ${label}`;
}

/** "an Anthropic API key (it starts with sk-ant-)" */
function keyName(provider: ModelProvider): string {
  return `${withArticle(provider)} API key (it starts with ${KEY_SHAPES[provider].prefix})`;
}

/** The provider whose keys `key` looks like, other than `provider`; null when none does. */
function otherProviderOf(key: string, provider: ModelProvider): ModelProvider | null {
  for (const other of ["anthropic", "google", "openai"] as const)
    if (other !== provider && KEY_SHAPES[other].matches(key)) return other;
  return null;
}

/** A pasted key for `provider`: trimmed, then refused with a message that says what to paste instead. */
export function apiKeySchema(provider: ModelProvider) {
  return z
    .string()
    .transform((raw) => raw.trim())
    .superRefine((key, ctx) => {
      const fail = (message: string) => ctx.addIssue({ code: "custom", message });
      if (key === "") return fail(`Paste ${keyName(provider)}.`);
      if (key.length > MAX_KEY_LENGTH)
        return fail(`That is longer than any API key (${key.length} characters); paste the key alone.`);
      if (/[\s\p{Cc}]/u.test(key))
        return fail("An API key has no spaces, line breaks or control characters inside; paste the key alone.");
      const other = otherProviderOf(key, provider);
      if (other)
        fail(
          `That looks like ${keyName(other)}, not ${withArticle(provider)} one. ` +
            `Store it as the ${PROVIDER_INFO[other].label} key (invariant-web login --provider ${other}, or its form on the Setup page), ` +
            `and paste ${keyName(provider)} here.`,
        );
    });
}

/** The key as typed, trimmed; refused (without echoing it) when it cannot be `provider`'s API key. */
export function checkApiKey(raw: string, provider: ModelProvider = "openai"): string {
  const result = apiKeySchema(provider).safeParse(raw);
  if (result.success) return result.data;
  throw new AppError({ code: "BAD_REQUEST", field: "apiKey", message: result.error.issues[0]!.message });
}
