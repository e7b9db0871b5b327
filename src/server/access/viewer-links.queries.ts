import type { Db } from "../db/client";

export interface ViewerLinkView {
  id: string;
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

export function createViewerLinkQueries(db: Db) {
  const toView = (row: { id: string; label: string; createdAt: Date; revokedAt: Date | null }): ViewerLinkView => ({
    id: row.id,
    label: row.label,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  });
  return {
    async list(): Promise<ViewerLinkView[]> {
      return (await db.viewerLink.findMany({ orderBy: { createdAt: "desc" } })).map(toView);
    },
    async create(input: { label: string; tokenHash: string }): Promise<ViewerLinkView> {
      return toView(await db.viewerLink.create({ data: input }));
    },
    async findActiveByHash(tokenHash: string): Promise<ViewerLinkView | null> {
      const row = await db.viewerLink.findFirst({ where: { tokenHash, revokedAt: null } });
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
