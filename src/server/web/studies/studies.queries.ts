import type { Db } from "../../core/db/client";
import { createModelPriceQueries } from "./model-prices.queries";
import { createStudyReadQueries } from "./study-read.queries";
import { createStudyRepeatQueries } from "./study-repeat.queries";
import { createStudyFollowUpQueries } from "./study-follow-up.queries";
import { createStudyWriteQueries } from "./study-write.queries";
import { createTrialDispatchQueries } from "./trial-dispatch.queries";
import { createTrialRetryQueries } from "./trial-retry.queries";
import { createTrialWriteQueries } from "./trial-write.queries";

/**
 * Studies, configurations and trials in SQLite: the only modules here that touch Prisma, and they
 * return plain objects with parsed fields, never rows. Reading for the API (study-read), a study's
 * life (study-write), a trial's records (trial-write) and its slots and job (trial-dispatch).
 */
export function createStudyQueries(db: Db) {
  return {
    ...createStudyReadQueries(db),
    ...createStudyWriteQueries(db),
    ...createTrialWriteQueries(db),
    ...createTrialRetryQueries(db),
    ...createStudyRepeatQueries(db),
    ...createStudyFollowUpQueries(db),
    ...createTrialDispatchQueries(db),
    ...createModelPriceQueries(db),
  };
}

export type StudyQueries = ReturnType<typeof createStudyQueries>;
