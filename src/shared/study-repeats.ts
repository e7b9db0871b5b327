import { z } from "zod";

/** At most this many repeats are added to each configuration at a time (the form's own cap per configuration). */
export const MAX_ADDED_REPEATS = 20;

/**
 * Adds repeats to a study that ran: `repeats` more trials of every configuration that has trials, on the
 * study's frozen snapshot, image and captured test files (study-repeats.ts on the server).
 */
export const addRepeatsInputSchema = z.strictObject({
  studyId: z.string().min(1).max(200),
  repeats: z
    .int("Repeats is a whole number.")
    .min(1, "Add at least 1 repeat.")
    .max(MAX_ADDED_REPEATS, `At most ${MAX_ADDED_REPEATS} repeats at a time.`),
});
export type AddRepeatsInput = z.infer<typeof addRepeatsInputSchema>;
