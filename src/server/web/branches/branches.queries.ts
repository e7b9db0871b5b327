import type { Db } from "../../core/db/client";

/** ResultBranch rows (the branches "Apply as a branch" made) and the study facts a branch needs. */

export interface ResultBranchRecord {
  id: string;
  projectId: string;
  trialId: string | null;
  studyId: string | null;
  studyTitle: string | null;
  name: string;
  commit: string;
  baseCommit: string;
  createdBy: string;
  remote: string | null;
  pushedAt: Date | null;
  removedAt: Date | null;
  createdAt: Date;
}

type BranchRow = Awaited<ReturnType<Db["resultBranch"]["findUniqueOrThrow"]>>;

const HISTORY_LIMIT = 100;

export function createBranchQueries(db: Db) {
  async function withStudies(rows: BranchRow[]): Promise<ResultBranchRecord[]> {
    const trialIds = [...new Set(rows.flatMap((row) => (row.trialId ? [row.trialId] : [])))];
    const trials = await db.trial.findMany({
      where: { id: { in: trialIds } },
      select: { id: true, studyId: true, study: { select: { title: true } } },
    });
    const byId = new Map(trials.map((trial) => [trial.id, trial]));
    return rows.map((row) => {
      const trial = row.trialId ? byId.get(row.trialId) : undefined;
      return { ...row, studyId: trial?.studyId ?? null, studyTitle: trial?.study.title ?? null };
    });
  }

  return {
    /** The study a trial belongs to. */
    async studyOfTrial(trialId: string): Promise<string | null> {
      const trial = await db.trial.findUnique({ where: { id: trialId }, select: { studyId: true } });
      return trial?.studyId ?? null;
    },

    /**
     * The commit a study's snapshot was taken on. A rerun runs on its original's snapshot, so it has the
     * commit its original recorded (followed back while the snapshot is the same one).
     */
    async snapshotCommit(studyId: string): Promise<string | null> {
      let id: string | null = studyId;
      for (let depth = 0; id && depth < 20; depth += 1) {
        const study: { snapshotCommit: string | null; snapshotId: string | null; rerunOf: string | null } | null =
          await db.study.findUnique({
            where: { id },
            select: { snapshotCommit: true, snapshotId: true, rerunOf: true },
          });
        if (!study) return null;
        if (study.snapshotCommit) return study.snapshotCommit;
        if (!study.rerunOf) return null;
        const original: { snapshotId: string | null } | null = await db.study.findUnique({
          where: { id: study.rerunOf },
          select: { snapshotId: true },
        });
        id = original && original.snapshotId === study.snapshotId ? study.rerunOf : null;
      }
      return null;
    },

    async create(input: {
      projectId: string;
      trialId: string;
      name: string;
      commit: string;
      baseCommit: string;
      createdBy: string;
    }): Promise<ResultBranchRecord> {
      const row = await db.resultBranch.create({ data: input });
      const [record] = await withStudies([row]);
      return record as ResultBranchRecord;
    },

    async find(id: string): Promise<ResultBranchRecord | null> {
      const row = await db.resultBranch.findUnique({ where: { id } });
      return row ? ((await withStudies([row]))[0] ?? null) : null;
    },

    /** Newest first. */
    async list(input: { projectId: string; trialId?: string | undefined }): Promise<ResultBranchRecord[]> {
      const rows = await db.resultBranch.findMany({
        where: { projectId: input.projectId, ...(input.trialId ? { trialId: input.trialId } : {}) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: HISTORY_LIMIT,
      });
      return withStudies(rows);
    },

    /** The trial's branch that is still in the repository (as far as the product knows). */
    async current(trialId: string): Promise<ResultBranchRecord | null> {
      const row = await db.resultBranch.findFirst({
        where: { trialId, removedAt: null },
        orderBy: { createdAt: "desc" },
      });
      return row ? ((await withStudies([row]))[0] ?? null) : null;
    },

    async markPushed(input: { id: string; remote: string; at: Date }): Promise<void> {
      await db.resultBranch.update({ where: { id: input.id }, data: { remote: input.remote, pushedAt: input.at } });
    },

    async markRemoved(input: { id: string; at: Date }): Promise<void> {
      await db.resultBranch.update({ where: { id: input.id }, data: { removedAt: input.at } });
    },
  };
}

export type BranchQueries = ReturnType<typeof createBranchQueries>;
