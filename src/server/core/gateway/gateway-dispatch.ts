import type http from "node:http";
import type tls from "node:tls";
import type { ModelProvider } from "../../../shared/harness-kinds";
import { isChatgptCredential } from "./gateway-credentials";
import { sendGatewayError } from "./gateway-error";
import type { GatewayKey } from "./gateway-key";
import { forwardRequest, type ForwardContext, type RecoverCredential, type UpstreamTarget } from "./forward-request";
import { API_PROVIDER, type GatewayRoute } from "./apis/gateway-api";
import type { RunRecord } from "./run-tokens";
import { createUpstreamClient } from "./upstream-client";

/** The gateway's upstreams by base URL, each with its own connection pool, opened at first use. */
export function createTargets(tlsOptions: tls.ConnectionOptions | undefined) {
  const targets = new Map<string, UpstreamTarget>();
  return {
    get(baseUrl: string): UpstreamTarget {
      let target = targets.get(baseUrl);
      if (!target) {
        const url = new URL(baseUrl);
        target = {
          client: createUpstreamClient({ baseUrl: url, ...(tlsOptions ? { tls: tlsOptions } : {}) }),
          path: url.pathname.replace(/\/+$/, ""), // "" for a bare host
          host: url.host,
        };
        targets.set(baseUrl, target);
      }
      return target;
    },
    close(): void {
      for (const target of targets.values()) target.client.close();
    },
  };
}

/**
 * The scripted model's base URLs: the Responses API's (ending in `/v1`, as OPENAI_BASE_URL does) and
 * the server root (Anthropic's and Gemini's paths are whole). `scriptedBaseUrl` may be either form —
 * the mock model's `url` (…/v1, what callers pass) or its `rootUrl`.
 */
export function scriptedBases(scriptedBaseUrl: string | null): { responses: string; root: string } | null {
  if (!scriptedBaseUrl) return null;
  const trimmed = scriptedBaseUrl.replace(/\/+$/, "");
  const root = trimmed.replace(/\/v1$/, "");
  return { responses: `${root}/v1`, root };
}

/**
 * Where an admitted request goes: a scripted run to the bundled scripted model (no credential, every
 * API), any other to its API's provider with that provider's credential — for OpenAI the API for an
 * API key, Codex's ChatGPT endpoint for a ChatGPT sign-in (with a renewed token once after a 401);
 * Anthropic's and Google's APIs for their keys.
 */
export function createDispatch(options: {
  targets: ReturnType<typeof createTargets>;
  key: GatewayKey;
  context: ForwardContext;
  upstreamBaseUrl: string;
  chatgptBaseUrl: string;
  /** Base URLs of Anthropic's and Google's APIs (server roots). */
  upstreams: Record<Exclude<ModelProvider, "openai">, string>;
  scriptedBaseUrl: string | null;
  afterUnauthorized?: RecoverCredential;
}) {
  const { targets, key, context } = options;
  const scripted = scriptedBases(options.scriptedBaseUrl);
  const after = options.afterUnauthorized;
  const recover: RecoverCredential | undefined = after
    ? async (used) => {
        const next = await after(used);
        if (next) key.remember(isChatgptCredential(next) ? next.accessToken : next.apiKey);
        return next;
      }
    : undefined;
  return (request: {
    req: http.IncomingMessage;
    res: http.ServerResponse;
    run: RunRecord;
    route: GatewayRoute;
  }): void => {
    const { res, run, route } = request;
    if (run.policy.scripted) {
      if (!scripted)
        return sendGatewayError({
          res,
          api: route.api,
          status: 503,
          type: "scripted_model_unavailable",
          message: "This run asks for the scripted model, which this worker does not serve.",
        });
      const base = route.api === "responses" ? scripted.responses : scripted.root;
      return forwardRequest({ ...request, context, target: targets.get(base), credential: null });
    }
    void key.credentialFor(res, run, route.api).then((credential) => {
      if (credential === null || res.destroyed) return;
      const provider = API_PROVIDER[route.api];
      const base =
        provider === "openai"
          ? isChatgptCredential(credential)
            ? options.chatgptBaseUrl
            : options.upstreamBaseUrl
          : options.upstreams[provider];
      const retry = provider === "openai" && recover ? { recover } : {};
      forwardRequest({ ...request, context, target: targets.get(base), credential, ...retry });
    });
  };
}
