import type { Db } from "../db/client";

/** What the worker API needs of the database: where a trial's results belong. */
export function createWorkerApiQueries(db: Db) {
  return {
    /** The trial's current attempt and its study's frozen snapshot, or null when there is no such trial. */
    async resultTarget(
      trialId: string,
    ): Promise<{ attempt: number; studyId: string; snapshotId: string | null } | null> {
      const row = await db.trial.findUnique({
        where: { id: trialId },
        select: { attempt: true, studyId: true, study: { select: { snapshotId: true } } },
      });
      return row ? { attempt: row.attempt, studyId: row.studyId, snapshotId: row.study.snapshotId } : null;
    },
  };
}

export type WorkerApiQueries = ReturnType<typeof createWorkerApiQueries>;
