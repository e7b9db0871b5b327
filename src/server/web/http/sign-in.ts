import type http from "node:http";
import type { AccessService } from "../access/access-service";
import { expiredLegacyCookie, sameOriginTarget, sessionCookie } from "../access/request-guard";

/**
 * A page load carrying `?token=` (the printed URL, a viewer link) or `?code=` (the launcher's one-time
 * code): on success a new session cookie and a 303 to the same address without the credential, on this
 * origin only. Returns false when the credential is not valid (the caller answers 401).
 */
export async function signInFromLink(options: {
  access: AccessService;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
}): Promise<boolean> {
  const { url, res } = options;
  const token = url.searchParams.get("token");
  const code = url.searchParams.get("code");
  const userAgent = String(options.req.headers["user-agent"] ?? "");
  const signedIn = await options.access.signIn(token !== null ? { token, userAgent } : { code: code ?? "", userAgent });
  if (!signedIn) return false;
  url.searchParams.delete("token");
  url.searchParams.delete("code");
  res.statusCode = 303;
  res.setHeader("Set-Cookie", [sessionCookie(signedIn.secret, signedIn.maxAgeSeconds), expiredLegacyCookie()]);
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Location", sameOriginTarget(url));
  res.end();
  return true;
}

/** Whether this request is a sign-in link: a page load with `?token=` or `?code=`. */
export function isSignInLink(req: http.IncomingMessage, url: URL): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  return url.searchParams.has("token") || (req.method === "GET" && url.searchParams.has("code"));
}
