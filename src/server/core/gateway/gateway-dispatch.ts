import type http from "node:http";
import type tls from "node:tls";
import { isChatgptCredential } from "./gateway-credentials";
import { sendGatewayError } from "./gateway-error";
import type { GatewayKey } from "./gateway-key";
import { forwardRequest, type ForwardContext, type RecoverCredential, type UpstreamTarget } from "./forward-request";
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
 * Where an admitted request goes: a scripted run to the bundled scripted model (no credential), any
 * other to the provider its credential belongs to — the API for an API key, Codex's ChatGPT endpoint
 * for a ChatGPT sign-in (with a renewed token once after a 401).
 */
export function createDispatch(options: {
  targets: ReturnType<typeof createTargets>;
  key: GatewayKey;
  context: ForwardContext;
  upstreamBaseUrl: string;
  chatgptBaseUrl: string;
  scriptedBaseUrl: string | null;
  afterUnauthorized?: RecoverCredential;
}) {
  const { targets, key, context } = options;
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
    route: { subPath: string; body: "responses" | "none" };
  }): void => {
    const { res, run } = request;
    if (run.policy.scripted) {
      if (!options.scriptedBaseUrl)
        return sendGatewayError({
          res,
          status: 503,
          type: "scripted_model_unavailable",
          message: "This run asks for the scripted model, which this worker does not serve.",
        });
      return forwardRequest({ ...request, context, target: targets.get(options.scriptedBaseUrl), credential: null });
    }
    void key.credentialFor(res, run).then((credential) => {
      if (credential === null || res.destroyed) return;
      const target = targets.get(isChatgptCredential(credential) ? options.chatgptBaseUrl : options.upstreamBaseUrl);
      forwardRequest({ ...request, context, target, credential, ...(recover ? { recover } : {}) });
    });
  };
}
