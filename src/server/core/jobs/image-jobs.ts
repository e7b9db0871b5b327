import { z } from "zod";
import { TRANSFER_QUEUE_NAME, type JobDefinition } from "./job-catalog";

export const imageIdSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, "An image is named by its id, sha256:<64 hex>.");

/**
 * Send a committed trial image to the web process: the worker on another host whose engine holds it
 * (`worker`, or any worker on another host running on `host`, which shares that engine) `docker save`s it
 * and uploads it over the worker API (POST /api/worker/images/<id>), where it is loaded into the
 * dashboard host's engine. Every other worker hands the job back (worker/dashboard-link.ts). It goes to the
 * transfer queue, which a slot of its own takes in every worker on another host, so it never waits behind
 * trials; a job of this name in the main queue (queued by an older dashboard) still runs there, in a job slot.
 */
export const sendImageJob = {
  name: "image.send",
  queue: TRANSFER_QUEUE_NAME,
  schema: z.object({
    imageId: imageIdSchema,
    /** The worker that committed it (worker ids change when a worker restarts) and its host. */
    worker: z.string().nullable(),
    host: z.string(),
    trialId: z.string(),
    /** The registry the dashboard pulls from (its --registry): push the image there instead of uploading a docker save. */
    registry: z.string().nullable().default(null),
  }),
  result: z.object({ bytes: z.number().int().nonnegative() }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;

export type SendImageJob = z.infer<typeof sendImageJob.schema>;

/** Whether a worker is the one a send-image job is for: the worker that made the image, or one on its host. */
export function sendsImage(job: Pick<SendImageJob, "worker" | "host">, worker: { id: string; host: string }): boolean {
  return job.worker === worker.id || job.host === worker.host;
}
