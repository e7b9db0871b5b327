import type { ProjectQueries } from "../projects/projects.queries";
import type { ApplyFs } from "./apply-commit";
import type { ApplyQueries } from "./apply.queries";

/** What applying and undoing need (apply-service.ts, apply-undo.ts). */
export interface ApplyServiceDeps {
  dataDir: string;
  projects: Pick<ProjectQueries, "findById">;
  records: ApplyQueries;
  /** Filesystem calls of the commit step (tests inject failures here). */
  fs?: ApplyFs;
}
