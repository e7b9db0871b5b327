import type http from "node:http";
import { isAppError } from "../errors/app-error";
import { PROVIDER_INFO, type ModelProvider } from "../../../shared/harness-kinds";
import { bearerOf, isChatgptCredential, type GatewayCredential } from "./gateway-credentials";
import { sendGatewayError } from "./gateway-error";
import { API_PROVIDER, type GatewayApi } from "./apis/gateway-api";
import { providerSignInHint } from "./apis/provider-auth";
import type { RunRecord } from "./run-tokens";
import { messageOf } from "../../../shared/error-message";

/** At most this many secrets are remembered for redaction (rotated keys, refreshed tokens, each provider's). */
const MAX_REMEMBERED = 16;

/**
 * The real credential of one provider, looked up for every request; null or a throw: not signed in
 * for that provider. OpenAI's may be an API key or the host Codex's ChatGPT sign-in; Anthropic's and
 * Google's are API keys (`{ kind: "api-key", apiKey }`).
 */
export type CredentialLookup = (
  provider: ModelProvider,
) => GatewayCredential | null | Promise<GatewayCredential | null>;

/**
 * The model gateway's hold on the real credentials: looked up for every request (so a key stored,
 * removed or refreshed while it runs applies to the next request, and a missing one is reported on
 * each), and every secret it has seen redacted from anything the gateway logs or passes on.
 */
export function createGatewayKey(options: {
  credential: CredentialLookup;
  extraSecrets?: () => string[];
  log: (line: string) => void;
}) {
  const seen: string[] = [];
  const remember = (secret: string) => {
    if (secret.length < 8 || seen.includes(secret)) return;
    seen.push(secret);
    if (seen.length > MAX_REMEMBERED) seen.shift();
  };

  /** OpenAI without a credential: 503 (401 for a sign-in that expired), with the sources' own explanation. */
  function refuse(res: http.ServerResponse, run: RunRecord, error: unknown): null {
    const message = messageOf(error);
    options.log(`model gateway: ${message}`);
    const expired = isAppError(error) && error.code === "UNAUTHORIZED";
    run.lastUpstreamError = message;
    sendGatewayError({
      res,
      status: expired ? 401 : 503,
      type: expired ? "gateway_sign_in_expired" : "gateway_not_signed_in",
      message: isAppError(error) ? message : `The model gateway has no usable credential: ${message}`,
    });
    return null;
  }

  /** Anthropic or Google without a key: 401 in the API's shape, saying how to sign in. */
  function refuseProvider(res: http.ServerResponse, run: RunRecord, api: GatewayApi, error: unknown): null {
    const provider = API_PROVIDER[api];
    const hint = providerSignInHint(provider);
    const why = error === null ? "" : ` (${messageOf(error)})`;
    const reason = `The model gateway has no ${PROVIDER_INFO[provider].label} API key for this run's ${PROVIDER_INFO[provider].api} requests${why}.`;
    const message = reason.includes("invariant-web login") ? reason : `${reason} ${hint}`;
    options.log(`model gateway: ${message}`);
    run.lastUpstreamError = message;
    sendGatewayError({ res, api, status: 401, type: "gateway_not_signed_in", message });
    return null;
  }

  return {
    redact(text: string): string {
      let out = text;
      for (const secret of [...seen, ...(options.extraSecrets?.() ?? [])])
        if (secret.length >= 8) out = out.replaceAll(secret, "[redacted]");
      return out;
    },

    remember,

    /** The credential for a request of the API; null when there is none (answered: see refuse, refuseProvider). */
    async credentialFor(res: http.ServerResponse, run: RunRecord, api: GatewayApi): Promise<GatewayCredential | null> {
      const provider = API_PROVIDER[api];
      let credential: GatewayCredential | null;
      try {
        credential = await options.credential(provider);
      } catch (error) {
        return provider === "openai" ? refuse(res, run, error) : refuseProvider(res, run, api, error);
      }
      if (credential === null)
        return provider === "openai"
          ? refuse(res, run, new Error("no credential is configured"))
          : refuseProvider(res, run, api, null);
      // a ChatGPT sign-in is OpenAI's alone; an empty key is no key
      if (provider !== "openai" && (isChatgptCredential(credential) || credential.apiKey.trim() === ""))
        return refuseProvider(res, run, api, null);
      remember(bearerOf(credential));
      return credential;
    },

    /** Reports a credential that could not be recovered after the upstream's 401 (refresh failed). */
    refuse,
  };
}
export type GatewayKey = ReturnType<typeof createGatewayKey>;
