import type { Db } from "../../core/db/client";
import type { Role } from "../../../shared/roles";

/** A signed-in browser as the System page lists it (never the cookie's secret, which is not stored). */
export interface BrowserSessionView {
  id: string;
  role: Role;
  /** The viewer link's label for viewer sessions; null for the admin's. */
  viewerLabel: string | null;
  viewerLinkId: string | null;
  userAgent: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** What identifying a cookie needs: the session and, for a viewer, whether its link still works. */
export interface ActiveSession {
  id: string;
  role: Role;
  viewerLinkId: string | null;
  lastSeenAt: Date;
}

interface SessionRow {
  id: string;
  role: string;
  viewerLinkId: string | null;
  userAgent: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  viewerLink: { label: string } | null;
}

const toView = (row: SessionRow): BrowserSessionView => ({
  id: row.id,
  role: row.role === "admin" ? "admin" : "viewer",
  viewerLabel: row.viewerLink?.label ?? null,
  viewerLinkId: row.viewerLinkId,
  userAgent: row.userAgent,
  createdAt: row.createdAt.toISOString(),
  lastSeenAt: row.lastSeenAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
});

/** The link must be unrevoked and unexpired for its viewer sessions to work. */
const linkStillWorks = (now: Date) => ({
  OR: [
    { viewerLinkId: null },
    { viewerLink: { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } },
  ],
});

export function createBrowserSessionQueries(db: Db) {
  return {
    async create(input: {
      secretHash: string;
      role: Role;
      viewerLinkId: string | null;
      userAgent: string;
      expiresAt: Date;
    }): Promise<{ id: string }> {
      return db.browserSession.create({ data: input, select: { id: true } });
    },
    async findActive(secretHash: string, now: Date): Promise<ActiveSession | null> {
      const row = await db.browserSession.findFirst({
        where: { secretHash, revokedAt: null, expiresAt: { gt: now }, ...linkStillWorks(now) },
        select: { id: true, role: true, viewerLinkId: true, lastSeenAt: true },
      });
      return row ? { ...row, role: row.role === "admin" ? "admin" : "viewer" } : null;
    },
    async touch(id: string, now: Date): Promise<void> {
      await db.browserSession.updateMany({ where: { id }, data: { lastSeenAt: now } });
    },
    async listActive(now: Date): Promise<BrowserSessionView[]> {
      const rows = await db.browserSession.findMany({
        where: { revokedAt: null, expiresAt: { gt: now }, ...linkStillWorks(now) },
        include: { viewerLink: { select: { label: true } } },
        orderBy: { lastSeenAt: "desc" },
      });
      return rows.map(toView);
    },
    /** Sets revokedAt; false when there is no such session. */
    async revoke(id: string, now: Date): Promise<boolean> {
      const { count } = await db.browserSession.updateMany({
        where: { id, revokedAt: null },
        data: { revokedAt: now },
      });
      if (count > 0) return true;
      return (await db.browserSession.count({ where: { id } })) > 0;
    },
    /** Forgets sessions that can no longer be used. */
    async purge(now: Date): Promise<void> {
      await db.browserSession.deleteMany({
        where: { OR: [{ expiresAt: { lte: now } }, { revokedAt: { not: null } }] },
      });
    },
  };
}

export type BrowserSessionQueries = ReturnType<typeof createBrowserSessionQueries>;
