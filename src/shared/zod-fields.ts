import { z } from "zod";

/** Field schemas the shared views, events and the exported report have in common. */
export const count = z.int().nonnegative();
export const seconds = z.number().nonnegative().finite();
export const isoDate = z.iso.datetime({
  offset: true,
  error: "Expected an ISO 8601 date-time, such as 2025-01-31T12:00:00.000Z.",
});
