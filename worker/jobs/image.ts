import { Transform } from "node:stream";
import { sendImageJob } from "../../src/server/core/jobs/image-jobs";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import type { JobContext, JobHandler } from "../job-handler";

/**
 * A worker on another host sends a committed trial image its engine holds to the web process ("continue
 * a result" there): `docker save` streamed straight into the upload, never held in memory.
 */
export function createSendImageHandler(deps: {
  runtime: Pick<ContainerRuntime, "inspectImage" | "saveImage">;
  host: string;
  /** Under the lease of the image.send job: the dashboard takes the upload only from the worker holding it. */
  upload: (imageId: string, body: AsyncIterable<Buffer>, lease: NonNullable<JobContext["lease"]>) => Promise<unknown>;
  log?: (message: string) => void;
}): JobHandler<typeof sendImageJob.schema, typeof sendImageJob.result> {
  return {
    ...sendImageJob,
    async handler(data, context) {
      if (!context.lease) throw new Error("An image.send job came without a lease (a BullMQ job id and lock).");
      const info = await deps.runtime.inspectImage(data.imageId);
      if (info?.id !== data.imageId)
        throw new Error(
          `Trial ${data.trialId}'s result image ${data.imageId.replace(/^sha256:/, "").slice(0, 12)} is no longer on the Docker engine of ${deps.host} (it was removed there).`,
        );
      const started = Date.now();
      let bytes = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      const saved = await deps.runtime.saveImage(data.imageId);
      saved.on("error", (error: Error) => counted.destroy(error));
      await deps.upload(data.imageId, saved.pipe(counted), context.lease);
      deps.log?.(
        `sent image ${data.imageId.replace(/^sha256:/, "").slice(0, 12)} (${(bytes / 1048576).toFixed(0)} MiB) to the dashboard in ${Date.now() - started} ms`,
      );
      return { bytes };
    },
  };
}
