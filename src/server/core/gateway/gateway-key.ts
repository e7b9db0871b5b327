import type http from "node:http";
import { isAppError } from "../errors/app-error";
import { bearerOf, type GatewayCredential } from "./gateway-credentials";
import { sendGatewayError } from "./gateway-error";
import type { RunRecord } from "./run-tokens";
import { messageOf } from "../../../shared/error-message";

/** At most this many secrets are remembered for redaction (rotated keys, refreshed tokens). */
const MAX_REMEMBERED = 16;

/**
 * The model gateway's hold on the real credential: looked up for every request (so a key stored,
 * removed or refreshed while it runs applies to the next request, and a missing one is reported on
 * each), and every secret it has seen redacted from anything the gateway logs or passes on.
 */
export function createGatewayKey(options: {
  credential: () => GatewayCredential | Promise<GatewayCredential>;
  extraSecrets?: () => string[];
  log: (line: string) => void;
}) {
  const seen: string[] = [];
  const remember = (secret: string) => {
    if (secret.length < 8 || seen.includes(secret)) return;
    seen.push(secret);
    if (seen.length > MAX_REMEMBERED) seen.shift();
  };

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

  return {
    redact(text: string): string {
      let out = text;
      for (const secret of [...seen, ...(options.extraSecrets?.() ?? [])])
        if (secret.length >= 8) out = out.replaceAll(secret, "[redacted]");
      return out;
    },

    remember,

    /** The credential for this request; null (answered 503, or 401 for a sign-in that expired) when there is none. */
    async credentialFor(res: http.ServerResponse, run: RunRecord): Promise<GatewayCredential | null> {
      try {
        const credential = await options.credential();
        remember(bearerOf(credential));
        return credential;
      } catch (error) {
        return refuse(res, run, error);
      }
    },

    /** Reports a credential that could not be recovered after the upstream's 401 (refresh failed). */
    refuse,
  };
}
export type GatewayKey = ReturnType<typeof createGatewayKey>;
