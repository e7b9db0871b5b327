import { messageOf } from "../../../shared/error-message";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { registryName, type ImageRegistry } from "../runtime/registry-transfer";

/** Where an image stands in the registry, as a worker polling for it sees it. */
export type RegistryPush =
  { state: "none" } | { state: "pushing" } | { state: "ready"; reference: string } | { state: "failed"; error: string };

/**
 * The dashboard host's side of "images through a registry": an environment image a worker on another
 * host asks for is pushed once (only the layers the registry lacks travel) and the worker pulls it by
 * digest. A push can take minutes for a first image, so it runs in the background and the worker polls
 * (`status`); a failed push is forgotten after it is reported, so the next job tries again.
 */
export function createRegistryPublisher(options: {
  runtime: Pick<ContainerRuntime, "pushImage">;
  registry: ImageRegistry | null;
  log: (message: string) => void;
}) {
  const pushes = new Map<string, RegistryPush>();

  function start(registry: ImageRegistry, imageId: string): void {
    pushes.set(imageId, { state: "pushing" });
    const started = Date.now();
    options.runtime
      .pushImage({ imageId, ...registryName(registry, "environments", imageId), auth: registry.auth })
      .then((reference) => {
        pushes.set(imageId, { state: "ready", reference });
        options.log(`pushed image ${imageId.slice(7, 19)} to ${registry.address} in ${Date.now() - started} ms`);
      })
      .catch((error: unknown) => {
        pushes.set(imageId, { state: "failed", error: `Could not push to ${registry.address}: ${messageOf(error)}` });
      });
  }

  return {
    /** The registry images move through, or null (docker save over HTTP). */
    registry: options.registry,
    /** Starts the push of `imageId` when it has not begun; where it stands. */
    status(imageId: string): RegistryPush {
      const { registry } = options;
      if (!registry) return { state: "none" };
      const known = pushes.get(imageId);
      if (!known) start(registry, imageId);
      if (known?.state === "failed") pushes.delete(imageId);
      return known ?? { state: "pushing" };
    },
  };
}

export type RegistryPublisher = ReturnType<typeof createRegistryPublisher>;
