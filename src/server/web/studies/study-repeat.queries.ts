import type { Db } from "../../core/db/client";
import type { StudyState } from "../../../shared/vocabulary";

/** The study states more repeats can be added in: it ran (or runs) its trials and is not being stopped. */
export const REPEATABLE_STUDY_STATES: readonly StudyState[] = ["running", "done", "stopped"];

export type AddRepeatsResult =
  { ok: true; trialIds: string[]; configurations: number } | { ok: false; state: StudyState | null };

/**
 * Adds `repeats` queued trials to every configuration of the study that has trials, counts them in the
 * configuration's repeats, and puts a finished study back to `running`. One transaction, conditional
 * on the study's state: all of it or nothing.
 */
async function addRepeats(db: Db, options: { studyId: string; repeats: number; now: Date }): Promise<AddRepeatsResult> {
  const { studyId, repeats, now } = options;
  return db.$transaction(async (tx) => {
    const study = await tx.study.findUnique({ where: { id: studyId }, select: { state: true } });
    const state = (study?.state ?? null) as StudyState | null;
    if (!state || !REPEATABLE_STUDY_STATES.includes(state)) return { ok: false, state };
    const configurations = await tx.configuration.findMany({
      where: { studyId, trials: { some: {} } },
      orderBy: { position: "asc" },
      select: { id: true },
    });
    const trialIds: string[] = [];
    let tick = now.getTime();
    for (const configuration of configurations) {
      for (let repeat = 0; repeat < repeats; repeat += 1) {
        const created = await tx.trial.create({
          data: { studyId, configurationId: configuration.id, queuedAt: new Date(tick++) },
          select: { id: true },
        });
        trialIds.push(created.id);
      }
      await tx.configuration.update({ where: { id: configuration.id }, data: { repeats: { increment: repeats } } });
    }
    await tx.study.update({ where: { id: studyId }, data: { state: "running", finishedAt: null, stopReason: null } });
    return { ok: true, trialIds, configurations: configurations.length };
  });
}

export function createStudyRepeatQueries(db: Db) {
  return {
    addRepeats: (options: { studyId: string; repeats: number; now: Date }) => addRepeats(db, options),
  };
}
