import { z } from "zod";
import { AppError } from "../errors/app-error";
import {
  jwtExpiresAt,
  readCodexSignIn,
  writeRefreshedTokens,
  type ChatgptTokens,
} from "../credentials/codex-auth-file";
import { messageOf } from "../../../shared/error-message";

/**
 * A ChatGPT-account sign-in of the host's Codex, used by the model gateway the way Codex uses it: the
 * access token as the bearer and the account id as `ChatGPT-Account-ID`, towards the endpoint Codex
 * uses for such a sign-in. An access token that has expired (by its JWT `exp`) is refreshed before it
 * is used; one the upstream rejects (401) is re-read from disk (Codex on the host may have refreshed
 * it) and otherwise refreshed. One refresh at a time for all runs; the new tokens are written back to
 * auth.json as Codex writes them. A refresh the sign-in service refuses is not tried again with the
 * same refresh token: every request then fails at once with how to sign in again.
 */
export const CODEX_OAUTH_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
export const DEFAULT_CHATGPT_BASE_URL = "https://chatgpt.com/backend-api/codex";
export const DEFAULT_TOKEN_URL = "https://auth.openai.com/oauth/token";
/** An access token this close to its expiry is refreshed first (a long request must not outlive it). */
const EXPIRY_MARGIN_MS = 60_000;

export interface ChatgptCredential {
  kind: "chatgpt";
  accessToken: string;
  accountId: string | null;
  source: "auth.json";
}

const refreshAnswerSchema = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().nullish(),
  id_token: z.string().nullish(),
});

export function chatgptSignInAgainHint(codexHome: string): string {
  return (
    `Sign in again on the host: \`codex login\`${codexHome ? ` (with CODEX_HOME=${codexHome})` : ""}, then start the study again; ` +
    "or store an OpenAI API key on the Setup page (or with `invariant-web login`)."
  );
}

function errorCodeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
    const error = parsed.error;
    if (typeof error === "string") return error;
    if (typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string")
      return (error as { code: string }).code;
    return typeof parsed.code === "string" ? parsed.code : null;
  } catch {
    return null;
  }
}

/** One refresh-token grant at the sign-in service: the new tokens, or why not (`refused`: it said no). */
async function exchangeRefreshToken(options: {
  tokenUrl: string;
  tokens: ChatgptTokens;
}): Promise<ChatgptTokens | { reason: string; refused: boolean }> {
  const { tokens } = options;
  if (!tokens.refreshToken) return { reason: "auth.json holds no refresh token", refused: false };
  let response: Response;
  try {
    response = await fetch(options.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_id: CODEX_OAUTH_CLIENT_ID,
        grant_type: "refresh_token",
        refresh_token: tokens.refreshToken,
      }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const why = messageOf(error);
    return { reason: `the sign-in service did not answer: ${why}`, refused: false };
  }
  const text = await response.text();
  if (!response.ok) {
    const code = errorCodeOf(text);
    return {
      reason: `the sign-in service answered HTTP ${response.status}${code ? `: ${code}` : ""}`,
      refused: response.status === 400 || response.status === 401 || response.status === 403,
    };
  }
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // reported below
  }
  const answer = refreshAnswerSchema.safeParse(json);
  if (!answer.success) return { reason: "the sign-in service's answer holds no access token", refused: false };
  return {
    accessToken: answer.data.access_token,
    refreshToken: answer.data.refresh_token ?? tokens.refreshToken,
    idToken: answer.data.id_token ?? tokens.idToken,
    accountId: tokens.accountId,
  };
}

export function createChatgptSession(options: {
  codexHome: string;
  tokenUrl: string;
  clock?: () => number;
  log: (line: string) => void;
}) {
  const clock = options.clock ?? Date.now;
  let refreshing: Promise<ChatgptTokens> | null = null;
  /** A refresh the sign-in service refused, for the refresh token it was refused for. */
  let refused: { refreshToken: string | null; message: string } | null = null;

  const credential = (tokens: ChatgptTokens): ChatgptCredential => ({
    kind: "chatgpt",
    accessToken: tokens.accessToken,
    accountId: tokens.accountId,
    source: "auth.json",
  });

  function readTokens(): ChatgptTokens {
    const signIn = readCodexSignIn(options.codexHome);
    if (signIn.kind !== "chatgpt")
      throw new AppError({
        code: "UNAUTHORIZED",
        message: `The host's Codex is no longer signed in with ChatGPT (${signIn.file}). ${chatgptSignInAgainHint(options.codexHome)}`,
      });
    return signIn.tokens;
  }

  function failure(reason: string): AppError {
    return new AppError({
      code: "UNAUTHORIZED",
      message: `The ChatGPT sign-in of the host's Codex could not be refreshed (${reason}). ${chatgptSignInAgainHint(options.codexHome)}`,
    });
  }

  async function requestRefresh(tokens: ChatgptTokens): Promise<ChatgptTokens> {
    const answer = await exchangeRefreshToken({ tokenUrl: options.tokenUrl, tokens });
    if ("reason" in answer) {
      const error = failure(answer.reason);
      // a refused refresh token stays refused: remember it until auth.json holds another one
      if (answer.refused) refused = { refreshToken: tokens.refreshToken, message: error.message };
      throw error;
    }
    writeRefreshedTokens({ codexHome: options.codexHome, tokens: answer, now: new Date(clock()) });
    options.log(`model gateway: refreshed the ChatGPT access token in ${options.codexHome}/auth.json`);
    return answer;
  }

  /** One refresh at a time: concurrent callers share it. */
  function refreshOnce(tokens: ChatgptTokens): Promise<ChatgptTokens> {
    if (refused && refused.refreshToken === tokens.refreshToken)
      return Promise.reject(new AppError({ code: "UNAUTHORIZED", message: refused.message }));
    refreshing ??= requestRefresh(tokens).finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  const expired = (token: string) => {
    const expiresAt = jwtExpiresAt(token);
    return expiresAt !== null && expiresAt - EXPIRY_MARGIN_MS <= clock();
  };

  return {
    /** The credential to use now: refreshed first when its access token has expired. */
    async current(): Promise<ChatgptCredential> {
      if (refreshing) return credential(await refreshing);
      const tokens = readTokens();
      return credential(expired(tokens.accessToken) ? await refreshOnce(tokens) : tokens);
    },

    /** The upstream rejected `usedAccessToken`: a newer one from disk, else a refreshed one (or an UNAUTHORIZED AppError). */
    async afterUnauthorized(usedAccessToken: string): Promise<ChatgptCredential> {
      if (refreshing) return credential(await refreshing);
      const tokens = readTokens();
      if (tokens.accessToken !== usedAccessToken && !expired(tokens.accessToken)) return credential(tokens);
      return credential(await refreshOnce(tokens));
    },

    /** Every secret this session may hold, to redact from logs and relayed error bodies. */
    secrets(): string[] {
      try {
        const tokens = readTokens();
        return [tokens.accessToken, tokens.refreshToken, tokens.idToken].filter((s): s is string => Boolean(s));
      } catch {
        return [];
      }
    },
  };
}
export type ChatgptSession = ReturnType<typeof createChatgptSession>;
