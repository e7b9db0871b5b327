import { Transform } from "node:stream";
import { sendImageJob } from "../../src/server/core/jobs/image-jobs";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import type { JobContext, JobHandler } from "../job-handler";
import type { SendImageJob } from "../../src/server/core/jobs/image-jobs";
import { registryName, type ImageRegistry } from "../../src/server/core/runtime/registry-transfer";
import { messageOf } from "../../src/shared/error-message";

const short = (imageId: string) => imageId.replace(/^sha256:/, "").slice(0, 12);

/**
 * A worker on another host sends a committed trial image its engine holds to the web process ("continue
 * a result" there): `docker save` streamed straight into the upload, never held in memory.
 */
export function createSendImageHandler(deps: {
  runtime: Pick<ContainerRuntime, "inspectImage" | "saveImage" | "pushImage">;
  host: string;
  /** Under the lease of the image.send job: the dashboard takes the upload only from the worker holding it. */
  upload: (imageId: string, body: AsyncIterable<Buffer>, lease: NonNullable<JobContext["lease"]>) => Promise<unknown>;
  /** Tells the dashboard the image is in its registry (it pulls it by this digest), under the same lease. */
  announcePushed?: (imageId: string, reference: string, lease: NonNullable<JobContext["lease"]>) => Promise<unknown>;
  /** This host's credentials for its registry (--registry), used when the dashboard names that registry. */
  registry?: ImageRegistry | null;
  log?: (message: string) => void;
}): JobHandler<typeof sendImageJob.schema, typeof sendImageJob.result> {
  /** Pushes to the registry the dashboard named (only the layers it lacks travel); false when that failed. */
  async function pushed(data: SendImageJob, lease: NonNullable<JobContext["lease"]>): Promise<boolean> {
    if (!data.registry || !deps.announcePushed) return false;
    const auth = deps.registry?.address === data.registry ? deps.registry.auth : null;
    const started = Date.now();
    let reference: string;
    try {
      const name = registryName({ address: data.registry, auth }, "results", data.imageId);
      reference = await deps.runtime.pushImage({ imageId: data.imageId, ...name, auth });
    } catch (error) {
      deps.log?.(
        `could not push image ${short(data.imageId)} to ${data.registry} (${messageOf(error)}); uploading it with docker save instead`,
      );
      return false;
    }
    await deps.announcePushed(data.imageId, reference, lease);
    deps.log?.(
      `pushed image ${short(data.imageId)} to ${data.registry} in ${Date.now() - started} ms (the dashboard pulls it from there)`,
    );
    return true;
  }

  return {
    ...sendImageJob,
    async handler(data, context) {
      if (!context.lease) throw new Error("An image.send job came without a lease (a BullMQ job id and lock).");
      const info = await deps.runtime.inspectImage(data.imageId);
      if (info?.id !== data.imageId)
        throw new Error(
          `Trial ${data.trialId}'s result image ${data.imageId.replace(/^sha256:/, "").slice(0, 12)} is no longer on the Docker engine of ${deps.host} (it was removed there).`,
        );
      if (await pushed(data, context.lease)) return { bytes: 0 };
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
