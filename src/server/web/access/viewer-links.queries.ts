import type { Db } from "../../core/db/client";

export interface ViewerLinkView {
  id: string;
  label: string;
  createdAt: string;
  /** null: the link works until it is revoked. */
  expiresAt: string | null;
  revokedAt: string | null;
}

export function createViewerLinkQueries(db: Db) {
  const toView = (row: {
    id: string;
    label: string;
    createdAt: Date;
    expiresAt: Date | null;
    revokedAt: Date | null;
  }): ViewerLinkView => ({
    id: row.id,
    label: row.label,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  });
  return {
    async list(): Promise<ViewerLinkView[]> {
      return (await db.viewerLink.findMany({ orderBy: { createdAt: "desc" } })).map(toView);
    },
    async create(input: { label: string; tokenHash: string; expiresAt: Date | null }): Promise<ViewerLinkView> {
      return toView(await db.viewerLink.create({ data: input }));
    },
    /** An unrevoked link whose expiry (if any) is after `now`. */
    async findActiveByHash(tokenHash: string, now: Date): Promise<ViewerLinkView | null> {
      const row = await db.viewerLink.findFirst({
        where: { tokenHash, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      });
      return row ? toView(row) : null;
    },
    async revoke(id: string): Promise<ViewerLinkView | null> {
      const row = await db.viewerLink.findUnique({ where: { id } });
      if (!row) return null;
      if (row.revokedAt) return toView(row);
      return toView(await db.viewerLink.update({ where: { id }, data: { revokedAt: new Date() } }));
    },
  };
}

export type ViewerLinkQueries = ReturnType<typeof createViewerLinkQueries>;
