import { z } from "zod";
import { sessionIdInputSchema, startSessionInputSchema } from "../../../shared/session-schemas";
import { procedure, router } from "./init";

export const sessionsRouter = router({
  list: procedure
    .input(z.object({ projectId: z.string().min(1).max(100).optional() }))
    .query(({ ctx, input }) => ctx.services.sessions.list(input)),
  get: procedure.input(sessionIdInputSchema).query(({ ctx, input }) => ctx.services.sessions.get(input.sessionId)),
  lastScreen: procedure
    .input(sessionIdInputSchema)
    .query(({ ctx, input }) => ctx.services.sessions.lastScreen(input.sessionId)),
  start: procedure.input(startSessionInputSchema).mutation(({ ctx, input }) => ctx.services.sessions.start(input)),
  resume: procedure
    .input(sessionIdInputSchema)
    .mutation(({ ctx, input }) => ctx.services.sessions.resume(input.sessionId)),
  finish: procedure
    .input(sessionIdInputSchema)
    .mutation(({ ctx, input }) => ctx.services.sessions.finish(input.sessionId)),
  installedToolsChanges: procedure
    .input(sessionIdInputSchema)
    .query(({ ctx, input }) => ctx.services.sessions.installedToolsChanges(input.sessionId)),
  saveInstalledTools: procedure
    .input(sessionIdInputSchema)
    .mutation(({ ctx, input }) => ctx.services.sessions.saveInstalledTools(input.sessionId)),
});
