import type { Db } from "../../core/db/client";
import type { JobQueue } from "../../core/jobs/job-queue";
import { createDependencyQueries } from "../environments/dependencies.queries";
import { createDependencyService } from "../environments/dependency-service";
import { createEnvironmentService, DEFAULT_BASE_IMAGE } from "../environments/environment-service";
import type { SnapshotService } from "../snapshots/snapshot-service";
import type { WebQueries } from "./queries";

/** Environment versions and the dependency step that builds them too. */
export function wireEnvironments(deps: {
  options: { db: Db; dataDir: string; defaultBaseImage?: string };
  queries: WebQueries;
  queue: JobQueue;
  snapshots: SnapshotService;
}) {
  const { options } = deps;
  const environmentDeps = {
    environments: deps.queries.environmentQueries,
    projects: deps.queries.projectQueries,
    queue: deps.queue,
    dataDir: options.dataDir,
    defaultBaseImage: options.defaultBaseImage ?? DEFAULT_BASE_IMAGE,
  };
  return {
    environments: createEnvironmentService(environmentDeps),
    dependencies: createDependencyService({
      ...environmentDeps,
      dependencies: createDependencyQueries(options.db),
      snapshots: deps.snapshots,
    }),
  };
}
