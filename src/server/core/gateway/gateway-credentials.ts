import path from "node:path";
import { AppError } from "../errors/app-error";
import { readCodexSignIn } from "../credentials/codex-auth-file";
import { readStoredApiKey, storedKeyPaths } from "../credentials/stored-api-key";
import { createChatgptSession, type ChatgptCredential, type ChatgptSession } from "./chatgpt-session";

/** An API key the gateway puts on upstream requests (any provider's). Never logged, never sent to a container. */
export interface ApiKeyCredential {
  kind?: "api-key";
  apiKey: string;
  /** Where it came from, for messages (never the key itself): "OPENAI_API_KEY", "stored key", "auth.json", "ANTHROPIC_API_KEY", … */
  source?: string;
}

/** The real credential of a request: an API key, or the host's ChatGPT sign-in (access token and account). */
export type GatewayCredential = ApiKeyCredential | ChatgptCredential;

export function isChatgptCredential(credential: GatewayCredential): credential is ChatgptCredential {
  return credential.kind === "chatgpt";
}

/** The secret a credential puts on the wire. */
export function bearerOf(credential: GatewayCredential): string {
  return isChatgptCredential(credential) ? credential.accessToken : credential.apiKey;
}

export function signInHint(codexHome: string): string {
  return (
    "Give invariant-web model access: store an OpenAI API key on the Setup page or with `invariant-web login`, " +
    "set OPENAI_API_KEY in the environment that starts it, or sign the host's Codex in " +
    `(\`codex login\`, which writes ${path.join(codexHome, "auth.json")}; an API key or a ChatGPT account both work).`
  );
}

export interface CredentialSourcesOptions {
  /** OPENAI_API_KEY as read in src/cli/config.ts; wins over everything else. */
  openaiApiKey?: string | null;
  /** The data dir whose stored key (`invariant-web login`, the Setup page) comes next; absent: none. */
  dataDir?: string | null;
  /** The host's Codex home: its auth.json (API key or ChatGPT sign-in) comes last. */
  codexHome: string;
  /** Where a ChatGPT sign-in's refresh token is exchanged (default Codex's sign-in service). */
  tokenUrl?: string;
  clock?: () => number;
  log?: (line: string) => void;
}

/**
 * Where the model gateway's credential comes from, looked up for every request (a key stored or
 * removed while invariant-web runs applies to the next request): `OPENAI_API_KEY`, else the key stored
 * in the data dir, else the host's Codex `auth.json` (its API key, or its ChatGPT sign-in with token
 * refresh). Nothing usable: a PRECONDITION_FAILED AppError that says how to sign in.
 */
export function createCredentialSources(options: CredentialSourcesOptions) {
  let chatgpt: ChatgptSession | null = null;
  const session = () =>
    (chatgpt ??= createChatgptSession({
      codexHome: options.codexHome,
      tokenUrl: options.tokenUrl ?? "https://auth.openai.com/oauth/token",
      ...(options.clock ? { clock: options.clock } : {}),
      log: options.log ?? (() => undefined),
    }));

  return {
    async current(): Promise<GatewayCredential> {
      const fromEnv = options.openaiApiKey?.trim();
      if (fromEnv) return { kind: "api-key", apiKey: fromEnv, source: "OPENAI_API_KEY" };
      if (options.dataDir) {
        const stored = readStoredApiKey(options.dataDir);
        if (stored) return { kind: "api-key", apiKey: stored, source: "stored key" };
      }
      const signIn = readCodexSignIn(options.codexHome);
      if (signIn.kind === "api-key") return { kind: "api-key", apiKey: signIn.apiKey, source: "auth.json" };
      if (signIn.kind === "chatgpt") return session().current();
      const where = options.dataDir ? `no key is stored in ${storedKeyPaths(options.dataDir).dir}, ` : "";
      const file = signIn.file;
      const why = {
        missing: `there is no ${file}`,
        unreadable: `${file} cannot be read`,
        invalid: `${file} is not the JSON Codex writes`,
        empty: `${file} holds neither an API key nor a ChatGPT sign-in`,
      }[signIn.reason];
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: `The model gateway has no credential: OPENAI_API_KEY is not set, ${where}and ${why}. ${signInHint(options.codexHome)}`,
      });
    },

    /** The upstream answered 401 to `used`: a credential to retry with once, or null (API keys are not retried). */
    async afterUnauthorized(used: GatewayCredential): Promise<GatewayCredential | null> {
      if (!isChatgptCredential(used)) return null;
      return session().afterUnauthorized(used.accessToken);
    },

    /** Secrets to redact besides the one in use (a ChatGPT sign-in's refresh and id tokens). */
    extraSecrets(): string[] {
      return chatgpt ? chatgpt.secrets() : [];
    },
  };
}
export type CredentialSources = ReturnType<typeof createCredentialSources>;
