import type { Db } from "../../core/db/client";
import { createEventQueries } from "../events/events.queries";
import { createProjectQueries } from "../projects/projects.queries";
import { createSnapshotQueries } from "../snapshots/snapshots.queries";
import { createEnvironmentQueries } from "../environments/environments.queries";
import { createStudyQueries } from "../studies/studies.queries";

/** The web process's query modules (the only ones that touch Prisma). */
export function createQueries(db: Db) {
  return {
    events: createEventQueries(db),
    projectQueries: createProjectQueries(db),
    snapshotQueries: createSnapshotQueries(db),
    environmentQueries: createEnvironmentQueries(db),
    studyQueries: createStudyQueries(db),
  };
}

export type WebQueries = ReturnType<typeof createQueries>;
