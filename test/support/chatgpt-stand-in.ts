import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

/**
 * Local stand-ins for a ChatGPT-account sign-in: a token issuer (`POST /oauth/token`, the refresh
 * grant Codex uses) that issues and expires JWT-shaped access tokens, and a provider
 * (`POST /backend-api/codex/responses`) that accepts only the issuer's live access token with the
 * right `ChatGPT-Account-ID`, and forwards those requests to a mock model. Loopback only.
 */
export const STAND_IN_ACCOUNT = "acc-stand-in-42";

export function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.${randomBytes(12).toString("base64url")}`;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface ChatgptStandIn {
  tokenUrl: string;
  /** The ChatGPT endpoint's base URL (requests go to `<base>/responses`). */
  baseUrl: string;
  /** Issues a fresh token pair (access token valid for `validForMs`, or already expired when negative). */
  issue(validForMs: number): { accessToken: string; refreshToken: string; idToken: string };
  /** The issuer refuses every refresh from now on (as for a refresh token that expired). */
  refuseRefresh(): void;
  /** The provider rejects this access token from now on (revoked before its exp). */
  revoke(accessToken: string): void;
  refreshCalls: { refresh_token?: string; client_id?: string; grant_type?: string }[];
  /** What reached the provider: each request's authorization and account headers and status. */
  providerRequests: { authorization: string; account: string; status: number }[];
  close(): Promise<void>;
}

export async function startChatgptStandIn(options: { modelUrl: string }): Promise<ChatgptStandIn> {
  const live = new Map<string, number>(); // access token -> expires at (ms)
  const refreshTokens = new Set<string>();
  let refusing = false;
  const refreshCalls: ChatgptStandIn["refreshCalls"] = [];
  const providerRequests: ChatgptStandIn["providerRequests"] = [];

  const issue = (validForMs: number) => {
    const expiresAt = Date.now() + validForMs;
    const accessToken = jwt({ exp: Math.floor(expiresAt / 1000), sub: "user-1" });
    const refreshToken = `rt_${randomBytes(16).toString("hex")}`;
    live.set(accessToken, expiresAt);
    refreshTokens.add(refreshToken);
    const idToken = jwt({ "https://api.openai.com/auth": { chatgpt_account_id: STAND_IN_ACCOUNT } });
    return { accessToken, refreshToken, idToken };
  };

  const issuer = http.createServer((req, res) => {
    void readBody(req).then((body) => {
      const request = JSON.parse(body.toString("utf8") || "{}") as ChatgptStandIn["refreshCalls"][number];
      refreshCalls.push(request);
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (req.url !== "/oauth/token" || request.grant_type !== "refresh_token") return reply(400, { error: "bad" });
      if (refusing || !request.refresh_token || !refreshTokens.has(request.refresh_token))
        return reply(401, { error: { code: "refresh_token_expired", message: "Your refresh token has expired." } });
      refreshTokens.delete(request.refresh_token); // single use, as the real service
      const next = issue(3600_000);
      reply(200, { access_token: next.accessToken, refresh_token: next.refreshToken, id_token: next.idToken });
    });
  });

  const model = new URL(options.modelUrl);
  const provider = http.createServer((req, res) => {
    void readBody(req).then((body) => {
      const authorization = String(req.headers.authorization ?? "");
      const account = String(req.headers["chatgpt-account-id"] ?? "");
      const token = authorization.replace(/^Bearer /, "");
      const expiresAt = live.get(token);
      const ok = expiresAt !== undefined && expiresAt > Date.now() && account === STAND_IN_ACCOUNT;
      providerRequests.push({ authorization, account, status: ok ? 200 : 401 });
      if (req.url !== "/backend-api/codex/responses" || !ok) {
        res.writeHead(ok ? 404 : 401, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: { message: "Your authentication token has expired.", code: "token_expired" } }),
        );
        return;
      }
      // forwarded to the mock model, which answers as the scripted "model"
      const upstream = http.request(
        {
          host: model.hostname,
          port: model.port,
          path: `${model.pathname}/responses`,
          method: "POST",
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.end(body);
    });
  });

  const issuerUrl = await listen(issuer);
  const providerUrl = await listen(provider);
  const close = (server: http.Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    tokenUrl: `${issuerUrl}/oauth/token`,
    baseUrl: `${providerUrl}/backend-api/codex`,
    issue,
    refuseRefresh: () => {
      refusing = true;
    },
    revoke: (accessToken) => {
      live.delete(accessToken);
    },
    refreshCalls,
    providerRequests,
    close: async () => {
      await close(issuer);
      await close(provider);
    },
  };
}
