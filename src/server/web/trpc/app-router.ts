import { applyRouter } from "./apply-router";
import { branchesRouter } from "./branches-router";
import { router } from "./init";
import { dependenciesRouter } from "./dependencies-router";
import { environmentsRouter } from "./environments-router";
import { projectsRouter } from "./projects-router";
import { reviewRouter } from "./review-router";
import { sessionsRouter } from "./sessions-router";
import { setupRouter } from "./setup-router";
import { demoRouter } from "./demo-router";
import { snapshotsRouter } from "./snapshots-router";
import { studiesRouter } from "./studies-router";
import { systemRouter } from "./system-router";
import { workspacesRouter } from "./workspaces-router";

export const appRouter = router({
  projects: projectsRouter,
  environments: environmentsRouter,
  dependencies: dependenciesRouter,
  system: systemRouter,
  snapshots: snapshotsRouter,
  workspaces: workspacesRouter,
  studies: studiesRouter,
  review: reviewRouter,
  sessions: sessionsRouter,
  applies: applyRouter, // "apply" is reserved by tRPC (Function.prototype.apply)
  branches: branchesRouter,
  setup: setupRouter,
  demo: demoRouter,
});

export type AppRouter = typeof appRouter;
