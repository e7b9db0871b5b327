/**
 * Pure checks on incoming requests, shared by the HTTP server and socket.io:
 * - Host must name the bound host or loopback (defeats DNS rebinding);
 * - a browser Origin, when sent, must be our own origin (defeats cross-site requests);
 * - credentials are an `Authorization: Bearer` token or the session cookie (a random session secret,
 *   never a token: a cookie reaches every server on localhost, whatever its port).
 */
export const SESSION_COOKIE = "invariant_session";
/** The cookie that held the admin token itself before sessions; cleared on sign-in, never read. */
export const LEGACY_TOKEN_COOKIE = "invariant_token";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export interface GuardOptions {
  /** The address the server is bound to (e.g. 127.0.0.1, 0.0.0.0, a LAN address). */
  bindHost: string;
  port: number;
  /** Extra host names accepted in Host/Origin (INVARIANT_ALLOWED_HOSTS), e.g. a machine name when bound to 0.0.0.0. */
  allowedHosts: readonly string[];
}

function splitHost(hostHeader: string): { name: string; port: string | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(hostHeader.trim());
  if (!match?.[1]) return null;
  return { name: match[1].toLowerCase(), port: match[2] ?? null };
}

export function isAllowedHost(hostHeader: string | undefined, options: GuardOptions): boolean {
  if (!hostHeader) return false;
  const parsed = splitHost(hostHeader);
  if (!parsed) return false;
  if (Number(parsed.port ?? 80) !== options.port) return false;
  const bind = options.bindHost.toLowerCase();
  const bindName = bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind;
  if (LOOPBACK_NAMES.has(parsed.name)) return true;
  if (parsed.name === bindName && bind !== "0.0.0.0" && bind !== "::") return true;
  return options.allowedHosts.some((host) => host.toLowerCase() === parsed.name);
}

/** An Origin header is acceptable when absent (non-browser clients) or naming an allowed host on our port. */
export function isAllowedOrigin(origin: string | undefined, options: GuardOptions): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return port === options.port && isAllowedHost(`${url.hostname}:${port}`, options);
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(value));
    } catch {
      // malformed cookie values are ignored
    }
  }
  return cookies;
}

export function credentialsFromHeaders(headers: { cookie?: string | undefined; authorization?: string | undefined }): {
  bearer?: string;
  session?: string;
} {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "");
  if (bearer?.[1]) return { bearer: bearer[1] };
  const session = parseCookies(headers.cookie).get(SESSION_COOKIE);
  return session ? { session } : {};
}

/** The session cookie: persistent (Max-Age), out of scripts' reach, never sent by other sites. No `Secure`: plain HTTP. */
export function sessionCookie(secret: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(secret)}; Path=/; Max-Age=${Math.floor(maxAgeSeconds)}; HttpOnly; SameSite=Strict`;
}

export function expiredLegacyCookie(): string {
  return `${LEGACY_TOKEN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`;
}

/**
 * A redirect target on this origin: the path (leading slashes and backslashes collapsed to one `/`, so
 * `/.//evil.com/` cannot become the protocol-relative `//evil.com/`) and the query.
 */
export function sameOriginTarget(url: URL): string {
  return `/${url.pathname.replace(/^[/\\]+/, "")}${url.search}`;
}
