import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { z } from "zod";

/**
 * The host's Codex sign-in, `<CODEX_HOME>/auth.json` as Codex writes it: an API key
 * (`OPENAI_API_KEY`), or a ChatGPT-account sign-in (`tokens`: an OAuth access token, its refresh
 * token, the id token and the ChatGPT account id; `last_refresh`). Read by the model gateway (which
 * refreshes an expired access token and writes the new tokens back, as Codex itself does) and, for
 * its kind only, by the Setup page.
 */
const tokensSchema = z.looseObject({
  id_token: z.string().nullish(),
  access_token: z.string().min(1),
  refresh_token: z.string().nullish(),
  account_id: z.string().nullish(),
});
const authJsonSchema = z.looseObject({
  OPENAI_API_KEY: z.string().nullish(),
  auth_mode: z.string().nullish(),
  tokens: z.unknown().optional(),
  last_refresh: z.string().nullish(),
});

export interface ChatgptTokens {
  accessToken: string;
  refreshToken: string | null;
  idToken: string | null;
  /** Sent as the `ChatGPT-Account-ID` header, as Codex does. */
  accountId: string | null;
}

export type CodexSignIn =
  | { kind: "none"; file: string; reason: "missing" | "unreadable" | "invalid" | "empty" }
  | { kind: "api-key"; file: string; apiKey: string }
  | { kind: "chatgpt"; file: string; tokens: ChatgptTokens; lastRefresh: string | null };

export function codexAuthFile(codexHome: string): string {
  return path.join(codexHome, "auth.json");
}

/** The payload of a JWT (not verified: only read for its expiry and claims), or null. */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return typeof claims === "object" && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** When a JWT expires (ms since the epoch), or null when it says not. */
export function jwtExpiresAt(token: string): number | null {
  const exp = jwtClaims(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : null;
}

/** The ChatGPT account id: the file's `account_id`, else the id token's auth claim (as Codex reads it). */
function accountIdOf(tokens: z.infer<typeof tokensSchema>): string | null {
  if (tokens.account_id) return tokens.account_id;
  const auth = tokens.id_token ? jwtClaims(tokens.id_token)?.["https://api.openai.com/auth"] : undefined;
  const id = (auth as { chatgpt_account_id?: unknown } | undefined)?.chatgpt_account_id;
  return typeof id === "string" && id !== "" ? id : null;
}

export function readCodexSignIn(codexHome: string): CodexSignIn {
  const file = codexAuthFile(codexHome);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { kind: "none", file, reason: missing ? "missing" : "unreadable" };
  }
  let parsed: z.infer<typeof authJsonSchema>;
  try {
    parsed = authJsonSchema.parse(JSON.parse(text));
  } catch {
    return { kind: "none", file, reason: "invalid" };
  }
  const apiKey = parsed.OPENAI_API_KEY?.trim();
  // Codex's own rule: an explicit auth_mode wins; without one, a key means an API-key sign-in
  const mode = parsed.auth_mode ?? (apiKey ? "apikey" : "chatgpt");
  if (mode.toLowerCase().replace(/[^a-z]/g, "") === "apikey")
    return apiKey ? { kind: "api-key", file, apiKey } : { kind: "none", file, reason: "empty" };
  const tokens = tokensSchema.safeParse(parsed.tokens);
  if (!tokens.success) return apiKey ? { kind: "api-key", file, apiKey } : { kind: "none", file, reason: "empty" };
  return {
    kind: "chatgpt",
    file,
    lastRefresh: parsed.last_refresh ?? null,
    tokens: {
      accessToken: tokens.data.access_token,
      refreshToken: tokens.data.refresh_token ?? null,
      idToken: tokens.data.id_token ?? null,
      accountId: accountIdOf(tokens.data),
    },
  };
}

/**
 * Writes refreshed tokens into auth.json the way Codex does: the other fields kept, `last_refresh`
 * set, mode 0600, replaced atomically (so Codex on the host never reads half a file).
 */
export function writeRefreshedTokens(options: {
  codexHome: string;
  tokens: { accessToken: string; refreshToken?: string | null; idToken?: string | null };
  now: Date;
}): void {
  const file = codexAuthFile(options.codexHome);
  const current = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  const tokens = { ...((current.tokens as Record<string, unknown> | undefined) ?? {}) };
  tokens.access_token = options.tokens.accessToken;
  if (options.tokens.refreshToken) tokens.refresh_token = options.tokens.refreshToken;
  if (options.tokens.idToken) tokens.id_token = options.tokens.idToken;
  const next = { ...current, tokens, last_refresh: options.now.toISOString() };
  const temporary = path.join(path.dirname(file), `.auth.json.${randomBytes(6).toString("hex")}`);
  fs.writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  fs.renameSync(temporary, file);
}
