import type { Db } from "../../core/db/client";

type SnapshotRow = Awaited<ReturnType<Db["snapshot"]["findUniqueOrThrow"]>>;

/** The database side of a snapshot; the files (manifest, blobs, git) live in the data dir. */
export interface SnapshotRecord {
  id: string;
  projectId: string;
  fileCount: number;
  bytes: number;
  /** JSON of the special files left out. */
  skipped: string;
  createdAt: string;
}

function toRecord(row: SnapshotRow): SnapshotRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    fileCount: row.fileCount,
    bytes: Number(row.bytes),
    skipped: row.skipped,
    createdAt: row.createdAt.toISOString(),
  };
}

export function createSnapshotQueries(db: Db) {
  return {
    async findById(id: string): Promise<SnapshotRecord | null> {
      const row = await db.snapshot.findUnique({ where: { id } });
      return row ? toRecord(row) : null;
    },
    async listForProject(projectId: string): Promise<SnapshotRecord[]> {
      const rows = await db.snapshot.findMany({ where: { projectId }, orderBy: { createdAt: "desc" } });
      return rows.map(toRecord);
    },
    /** Records a snapshot; an existing row (same content, same project) is kept as it is. */
    async upsert(input: Omit<SnapshotRecord, "createdAt">): Promise<SnapshotRecord> {
      const row = await db.snapshot.upsert({
        where: { id: input.id },
        create: {
          id: input.id,
          projectId: input.projectId,
          fileCount: input.fileCount,
          bytes: BigInt(input.bytes),
          skipped: input.skipped,
        },
        update: {},
      });
      return toRecord(row);
    },
  };
}

export type SnapshotQueries = ReturnType<typeof createSnapshotQueries>;
