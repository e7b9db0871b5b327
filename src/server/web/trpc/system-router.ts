import { z } from "zod";
import { procedure, router } from "./init";

/** A short plain-text name: NUL, escapes and bidi overrides would reach the System page and logs as they are. */
const plainName = (options: { what: string; example: string }) =>
  z
    .string()
    .trim()
    .min(1, `Give the ${options.what} a name, such as ${options.example}.`)
    .max(80, "Names are at most 80 characters.")
    .refine((text) => !/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(text), {
      message: "Names are plain text: no control characters.",
    });

export const systemRouter = router({
  whoami: procedure.query(({ ctx }) => ({ role: ctx.identity.role, version: ctx.services.version })),
  doctor: procedure.query(({ ctx }) => ctx.services.system.doctor()),
  workers: procedure.query(({ ctx }) => ctx.services.system.workers()),
  health: procedure.query(({ ctx }) => ctx.services.system.health()),
  imageTransport: procedure.query(({ ctx }) => ctx.services.system.imageTransport()),
  recentEvents: procedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => ctx.services.system.recentEvents(input.limit)),
  selfcheck: procedure.mutation(({ ctx }) => ctx.services.system.selfcheck()),
  viewerLinks: procedure.query(({ ctx }) => ctx.services.access.listViewerLinks()),
  createViewerLink: procedure
    .input(
      z.object({
        label: plainName({ what: "link", example: "a teammate's name" }),
        /** Days until the link (and every browser signed in with it) stops working; null or absent: until revoked. */
        expiresInDays: z
          .number({ error: "The expiry is a number of days." })
          .int("Whole days, please.")
          .min(1, "A link lasts at least 1 day.")
          .max(365, "A link lasts at most 365 days; leave the expiry empty for a link that lasts until revoked.")
          .nullable()
          .optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { link, token } = await ctx.services.access.createViewerLink(input);
      return { link, url: `${ctx.services.publicUrl}/?token=${token}` };
    }),
  workerTokens: procedure.query(({ ctx }) => ctx.services.workers.tokens.list()),
  /** A token for a worker on another host (shown once): it opens the worker API and nothing else. */
  createWorkerToken: procedure
    .input(
      z.object({
        name: plainName({ what: "worker", example: "the host it runs on" }),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.workers.tokens.create(input)),
  revokeWorkerToken: procedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => ctx.services.workers.tokens.revoke(input.id)),
  revokeViewerLink: procedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => ctx.services.access.revokeViewerLink(input.id)),
  /** Signed-in browsers (admin and viewer sessions), the caller's own marked `current`; a viewer sees only its own. */
  sessions: procedure.query(async ({ ctx }) =>
    (await ctx.services.access.listSessions())
      .map((session) => ({ ...session, current: session.id === ctx.identity.sessionId }))
      .filter((session) => ctx.identity.role === "admin" || session.current),
  ),
  revokeSession: procedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => ctx.services.access.revokeSession(input.id)),
});
