import type http from "node:http";
import { isAppError } from "../errors/app-error";
import type { GatewayCredential } from "./gateway-credentials";
import { sendGatewayError } from "./gateway-error";

/**
 * The model gateway's hold on the real credential: resolved at the first request that needs it (so a
 * missing key is reported there too), and redacted from anything the gateway logs or passes on.
 */
export function createGatewayKey(options: { credential: () => GatewayCredential; log: (line: string) => void }) {
  let credential: GatewayCredential | null = null;

  return {
    redact(text: string): string {
      return credential ? text.replaceAll(credential.apiKey, "[redacted]") : text;
    },

    /** The real key; null (answered 503) when there is no usable credential. */
    apiKeyFor(res: http.ServerResponse): string | null {
      if (credential) return credential.apiKey;
      try {
        credential = options.credential();
        return credential.apiKey;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        options.log(`model gateway: ${message}`);
        sendGatewayError({
          res,
          status: 503,
          type: "gateway_not_signed_in",
          message: isAppError(error) ? message : `The model gateway has no usable credential: ${message}`,
        });
        return null;
      }
    },
  };
}
