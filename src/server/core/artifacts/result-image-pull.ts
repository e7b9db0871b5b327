import { AppError } from "../errors/app-error";
import type { SendImageJob } from "../jobs/image-jobs";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { isInRegistry, type ImageRegistry } from "../runtime/registry-transfer";
import { messageOf } from "../../../shared/error-message";

const short = (imageId: string) => imageId.replace(/^sha256:/, "").slice(0, 12);

/**
 * The dashboard's pull of a committed trial image a worker on another host pushed to the registry
 * ("continue a result"): only a digest in this dashboard's own registry is pulled (never another
 * registry or a tag), only the layers this engine lacks move, and the image is kept only when the digest
 * is exactly the image asked for; anything else it pulled is removed again.
 */
export async function pullPushedImage(
  deps: {
    runtime: Pick<ContainerRuntime, "inspectImage" | "pullImage" | "removeImage">;
    registry: ImageRegistry | null;
    log: (message: string) => void;
  },
  options: { request: Omit<SendImageJob, "registry">; reference: string; worker: string },
): Promise<void> {
  const { request, reference } = options;
  const fail = (why: string) =>
    new AppError({
      code: "PRECONDITION_FAILED",
      message: `Could not fetch trial ${request.trialId}'s result image ${short(request.imageId)} from ${request.host}: ${why}`,
    });
  if (!deps.registry || !isInRegistry(deps.registry, reference))
    throw fail(
      `worker "${options.worker}" named ${reference.slice(0, 200)}, which is not a digest in this dashboard's registry (${deps.registry?.address ?? "none set"}).`,
    );
  const started = Date.now();
  const had = (await deps.runtime.inspectImage(reference).catch(() => null))?.id ?? null;
  let report;
  try {
    report = await deps.runtime.pullImage({ reference, auth: deps.registry.auth });
  } catch (error) {
    throw fail(`pulling ${reference} from ${deps.registry.address} failed: ${messageOf(error)}`);
  }
  const pulled = (await deps.runtime.inspectImage(reference))?.id ?? null;
  if (pulled !== request.imageId) {
    if (pulled && pulled !== had) await deps.runtime.removeImage(pulled).catch(() => undefined);
    throw fail(
      `the digest worker "${options.worker}" named is image ${short(pulled ?? "none")}, not ${short(request.imageId)}; nothing of it was kept.`,
    );
  }
  deps.log(
    `sessions: pulled image ${short(request.imageId)} from ${deps.registry.address} in ${Date.now() - started} ms (${report.layersPulled} layers pulled, ${report.layersPresent} already here, ${(report.bytes / 1024 / 1024).toFixed(1)} MiB)`,
  );
}
