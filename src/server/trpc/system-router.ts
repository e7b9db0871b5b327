import { z } from "zod";
import { procedure, router } from "./init";

export const systemRouter = router({
  whoami: procedure.query(({ ctx }) => ({ role: ctx.identity.role, version: ctx.services.version })),
  doctor: procedure.query(({ ctx }) => ctx.services.system.doctor()),
  workers: procedure.query(({ ctx }) => ctx.services.system.workers()),
  recentEvents: procedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => ctx.services.system.recentEvents(input.limit)),
  selfcheck: procedure.mutation(({ ctx }) => ctx.services.system.selfcheck()),
  viewerLinks: procedure.query(({ ctx }) => ctx.services.access.listViewerLinks()),
  createViewerLink: procedure
    .input(
      z.object({
        label: z
          .string()
          .trim()
          .min(1, "Give the link a label, such as a teammate's name.")
          .max(80, "Labels are at most 80 characters."),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { link, token } = await ctx.services.access.createViewerLink(input);
      return { link, url: `${ctx.services.publicUrl}/?token=${token}` };
    }),
  revokeViewerLink: procedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => ctx.services.access.revokeViewerLink(input.id)),
});
