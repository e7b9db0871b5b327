import { z } from "zod";
import { procedure, router } from "./init";

/** The one-click demo (see src/server/web/demo/demo-service.ts): admin only, like every mutation. */
export const demoRouter = router({
  start: procedure
    .input(
      z.strictObject({
        /** Which demo (there is one: the calendar task); naming it keeps a stray call from starting one. */
        task: z.literal("calendar", { error: 'The demo task is "calendar".' }),
        /** Run on the bundled scripted model even with model access. */
        scripted: z.boolean().default(false),
        /** Where the calendar project is copied (absolute; default beside the data dir). */
        directory: z
          .string()
          .trim()
          .max(4096, "Paths are at most 4,096 characters.")
          .refine((value) => value.startsWith("/"), "Give an absolute path, for example /home/me/calendar-demo.")
          .refine((value) => !value.includes("\0"), "A path may not contain a NUL byte.")
          .nullable()
          .default(null),
      }),
    )
    .mutation(({ ctx, input }) => ctx.services.demo.start(input, ctx.identity.subject)),
});
