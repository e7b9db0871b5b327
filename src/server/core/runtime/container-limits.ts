import { z } from "zod";

/** A container's resource limits in a job (ResourceLimits in runtime/container-spec.ts); `openFiles` is the nofile ulimit. */
export const containerLimitsSchema = z.object({
  cpus: z.number(),
  memoryBytes: z.number(),
  swapBytes: z.number(),
  pids: z.number(),
  openFiles: z.number().int().positive().optional(),
});
