import { router } from "./init";
import { environmentsRouter } from "./environments-router";
import { projectsRouter } from "./projects-router";
import { systemRouter } from "./system-router";

export const appRouter = router({
  projects: projectsRouter,
  environments: environmentsRouter,
  system: systemRouter,
});

export type AppRouter = typeof appRouter;
