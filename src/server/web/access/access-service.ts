import { AppError } from "../../core/errors/app-error";
import type { Identity } from "../../../shared/roles";
import { hashToken, newToken, tokensEqual } from "./access-token";
import type { BrowserSessionQueries, BrowserSessionView } from "./browser-sessions.queries";
import { createLoginCodes } from "./login-codes";
import type { ViewerLinkQueries, ViewerLinkView } from "./viewer-links.queries";

export const DEFAULT_SESSION_MAX_AGE_MS = 30 * 24 * 3600_000;
const DAY_MS = 24 * 3600_000;
/** lastSeenAt is written at most this often per session (not on every asset request). */
const TOUCH_EVERY_MS = 60_000;

export interface AccessServiceDeps {
  adminToken: string;
  viewerLinks: ViewerLinkQueries;
  sessions: BrowserSessionQueries;
  /** How long a browser stays signed in (the cookie's Max-Age); 30 days by default. */
  sessionMaxAgeMs?: number;
  clock?: () => Date;
  /** Called with a viewer link's id or a session's id after it is revoked, so its open connections close. */
  onRevoke?: (id: string) => void;
}

/** How a request presents itself: an `Authorization: Bearer` token (CLI, scripts) or a session cookie (browsers). */
export interface Credentials {
  bearer?: string | undefined;
  session?: string | undefined;
}

export interface SignedIn {
  /** The cookie's value: shown to this browser only; the database keeps its hash. */
  secret: string;
  maxAgeSeconds: number;
  identity: Identity;
}

/**
 * Who is asking: the admin (the launcher's token), a viewer (an active read-only link), or nobody.
 * Browsers trade a token link (or a one-time code) for a session: the cookie then holds a random,
 * revocable session secret, never a token, because a cookie reaches every server on localhost.
 */
export function createAccessService(deps: AccessServiceDeps) {
  const clock = deps.clock ?? (() => new Date());
  const maxAgeMs = deps.sessionMaxAgeMs ?? DEFAULT_SESSION_MAX_AGE_MS;
  const codes = createLoginCodes(clock);

  /** The identity a token stands for, with the viewer link's expiry (null for the admin or a link without one). */
  async function resolveToken(
    token: string | undefined,
  ): Promise<{ identity: Identity; expiresAt: string | null } | null> {
    if (!token) return null;
    if (tokensEqual(token, deps.adminToken)) return { identity: { role: "admin", subject: "admin" }, expiresAt: null };
    if (!token.startsWith("v_")) return null;
    const link = await deps.viewerLinks.findActiveByHash(hashToken(token), clock());
    return link ? { identity: { role: "viewer", subject: link.id }, expiresAt: link.expiresAt } : null;
  }

  const identifyToken = async (token: string | undefined) => (await resolveToken(token))?.identity ?? null;

  async function identifySession(secret: string): Promise<Identity | null> {
    if (!secret.startsWith("s_")) return null;
    const now = clock();
    const session = await deps.sessions.findActive(hashToken(secret), now);
    if (!session) return null;
    if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await deps.sessions.touch(session.id, now);
    return { role: session.role, subject: session.viewerLinkId ?? "admin", sessionId: session.id };
  }

  async function startSession(identity: Identity, userAgent: string, expiresAt: string | null): Promise<SignedIn> {
    const now = clock();
    const limit = now.getTime() + maxAgeMs;
    const expires = new Date(expiresAt ? Math.min(limit, Date.parse(expiresAt)) : limit);
    const secret = newToken("s_");
    await deps.sessions.purge(now);
    const { id } = await deps.sessions.create({
      secretHash: hashToken(secret),
      role: identity.role,
      viewerLinkId: identity.role === "viewer" ? identity.subject : null,
      userAgent: userAgent.slice(0, 300),
      expiresAt: expires,
    });
    const maxAgeSeconds = Math.max(1, Math.floor((expires.getTime() - now.getTime()) / 1000));
    return { secret, maxAgeSeconds, identity: { ...identity, sessionId: id } };
  }

  return {
    identifyToken,

    /** A bearer token, when present, decides alone; otherwise the session cookie. */
    async identify(credentials: Credentials): Promise<Identity | null> {
      if (credentials.bearer !== undefined) return identifyToken(credentials.bearer);
      return credentials.session ? identifySession(credentials.session) : null;
    },

    /** Trades a valid token link or an unused one-time code for a new browser session; null when neither is valid. */
    async signIn(input: { token?: string; code?: string; userAgent: string }): Promise<SignedIn | null> {
      if (input.code !== undefined) {
        if (!codes.redeem(input.code)) return null;
        return startSession({ role: "admin", subject: "admin" }, input.userAgent, null);
      }
      const resolved = await resolveToken(input.token);
      return resolved ? startSession(resolved.identity, input.userAgent, resolved.expiresAt) : null;
    },

    /** A one-time admin sign-in code for the launcher's browser (valid once, for two minutes). */
    createLoginCode: () => codes.create(),

    listSessions: (): Promise<BrowserSessionView[]> => deps.sessions.listActive(clock()),

    async revokeSession(id: string): Promise<void> {
      if (!(await deps.sessions.revoke(id, clock())))
        throw new AppError({ code: "NOT_FOUND", message: `No signed-in browser with id ${id}.` });
      deps.onRevoke?.(id);
    },

    listViewerLinks: () => deps.viewerLinks.list(),

    /** Creates a read-only link, optionally expiring. The token is returned once and only its hash is stored. */
    async createViewerLink(input: {
      label: string;
      expiresInDays?: number | null;
    }): Promise<{ link: ViewerLinkView; token: string }> {
      const token = newToken("v_");
      const expiresAt = input.expiresInDays ? new Date(clock().getTime() + input.expiresInDays * DAY_MS) : null;
      const link = await deps.viewerLinks.create({ label: input.label, tokenHash: hashToken(token), expiresAt });
      return { link, token };
    },

    /** Revokes a link; its browser sessions stop working with it. */
    async revokeViewerLink(id: string): Promise<ViewerLinkView> {
      const link = await deps.viewerLinks.revoke(id);
      if (!link) throw new AppError({ code: "NOT_FOUND", message: `No viewer link with id ${id}.` });
      deps.onRevoke?.(id);
      return link;
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;
