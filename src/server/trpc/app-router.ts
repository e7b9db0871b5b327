import { router } from "./init";
import { projectsRouter } from "./projects-router";
import { systemRouter } from "./system-router";

export const appRouter = router({
  projects: projectsRouter,
  system: systemRouter,
});

export type AppRouter = typeof appRouter;
