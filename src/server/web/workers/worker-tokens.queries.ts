import type { Db } from "../../core/db/client";

export interface WorkerTokenView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

type Row = { id: string; name: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };

const toView = (row: Row): WorkerTokenView => ({
  id: row.id,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

export function createWorkerTokenQueries(db: Db) {
  return {
    async list(): Promise<WorkerTokenView[]> {
      return (await db.workerToken.findMany({ orderBy: { createdAt: "desc" } })).map(toView);
    },
    async create(input: { name: string; tokenHash: string }): Promise<WorkerTokenView> {
      return toView(await db.workerToken.create({ data: input }));
    },
    /** The token with this hash, revoked or not (a revoked one is refused with its own message). */
    async findByHash(tokenHash: string): Promise<WorkerTokenView | null> {
      const row = await db.workerToken.findUnique({ where: { tokenHash } });
      return row ? toView(row) : null;
    },
    async touch(id: string, at: Date): Promise<void> {
      await db.workerToken.updateMany({ where: { id, revokedAt: null }, data: { lastUsedAt: at } });
    },
    async revoke(id: string, at: Date): Promise<WorkerTokenView | null> {
      const row = await db.workerToken.findUnique({ where: { id } });
      if (!row) return null;
      if (row.revokedAt) return toView(row);
      return toView(await db.workerToken.update({ where: { id }, data: { revokedAt: at } }));
    },
  };
}

export type WorkerTokenQueries = ReturnType<typeof createWorkerTokenQueries>;
