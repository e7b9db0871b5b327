import type http from "node:http";
import { PROVIDER_INFO, type ModelProvider } from "../../../../shared/harness-kinds";
import { bearerOf, isChatgptCredential, type GatewayCredential } from "../gateway-credentials";
import type { GatewayApi } from "./gateway-api";

/** The Messages API version a request without `anthropic-version` is sent with (Anthropic requires one). */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/**
 * The run's token as the client sent it: each CLI puts its key where its provider expects one —
 * `Authorization: Bearer` (Codex; Anthropic's SDK with an auth token), `x-api-key` (Claude Code),
 * `x-goog-api-key` (Gemini CLI) or Gemini's `?key=` query parameter. Null: none of them.
 */
export function runTokenOf(req: http.IncomingMessage, url: URL): string | null {
  const { headers } = req;
  const bearer = typeof headers.authorization === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization) : null;
  if (bearer?.[1]) return bearer[1];
  for (const name of ["x-api-key", "x-goog-api-key"] as const) {
    const value = headers[name];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return url.searchParams.get("key")?.trim() || null;
}

/** The query to forward: the client's, without a `key` (a run token must never reach the provider). */
export function forwardedSearch(url: URL): string {
  if (!url.searchParams.has("key")) return url.search;
  const params = new URLSearchParams(url.searchParams);
  params.delete("key");
  const search = params.toString();
  return search === "" ? "" : `?${search}`;
}

/**
 * The header lines that carry the real credential in the API's own way (null: the scripted model, no
 * credential): OpenAI's bearer (and a ChatGPT sign-in's account header), Anthropic's `x-api-key`,
 * Google's `x-goog-api-key`. The client's auth headers were dropped before (gateway-headers.ts).
 */
export function credentialHeaders(api: GatewayApi, credential: GatewayCredential | null): [string, string][] {
  if (!credential) return [];
  if (api === "anthropic") return [["x-api-key", bearerOf(credential)]];
  if (api === "gemini") return [["x-goog-api-key", bearerOf(credential)]];
  const lines: [string, string][] = [["authorization", `Bearer ${bearerOf(credential)}`]];
  if (isChatgptCredential(credential) && credential.accountId) lines.push(["chatgpt-account-id", credential.accountId]);
  return lines;
}

/** Headers the API needs that a client may leave out: Anthropic's `anthropic-version`. */
export function apiHeaders(api: GatewayApi, headers: http.IncomingHttpHeaders): [string, string][] {
  if (api === "anthropic" && headers["anthropic-version"] === undefined)
    return [["anthropic-version", DEFAULT_ANTHROPIC_VERSION]];
  return [];
}

/** How to give invariant-web a provider's key, for the not-signed-in answer. */
export function providerSignInHint(provider: ModelProvider): string {
  const variables = provider === "google" ? "GEMINI_API_KEY (or GOOGLE_API_KEY)" : PROVIDER_INFO[provider].keyVariable;
  return `Sign in with \`invariant-web login --provider ${provider}\` (or store a ${PROVIDER_INFO[provider].label} API key on the Setup page), or set ${variables} in the environment that starts invariant-web.`;
}
