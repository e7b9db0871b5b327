import type Docker from "dockerode";

/**
 * Moving images through an OCI registry (docs/scaling.md, "Images through a registry"): a push sends only
 * the layers the registry lacks, a pull by digest fetches only the layers this engine lacks, and an image
 * keeps its id (its config's digest) on the way. The registry's credentials stay on the host that uses
 * them: they are passed to this engine's push or pull and never leave it otherwise.
 */
export interface RegistryAuth {
  username: string;
  password: string;
}

/** An OCI registry images move through: `host[:port][/path]`, and this host's credentials for it (null: anonymous). */
export interface ImageRegistry {
  address: string;
  auth: RegistryAuth | null;
}

/** Where an image of each kind is pushed: `<registry>/invariant/<kind>:<its id's hex>`. */
export function registryName(registry: ImageRegistry, kind: "environments" | "results", imageId: string) {
  return { repository: `${registry.address}/invariant/${kind}`, tag: imageId.replace(/^sha256:/, "") };
}

/** Whether `reference` (`repository@sha256:…`) names an image in this registry (never anywhere else). */
export function isInRegistry(registry: ImageRegistry, reference: string): boolean {
  const found = /^(.+)@sha256:[0-9a-f]{64}$/.exec(reference);
  const repositories = [registryName(registry, "environments", ""), registryName(registry, "results", "")];
  return found !== null && repositories.some((name) => name.repository === found[1]);
}

/** What a pull moved: the layers fetched and the ones this engine already had, and the bytes downloaded. */
export interface PullReport {
  layersPulled: number;
  layersPresent: number;
  bytes: number;
}

interface ProgressEvent {
  id?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  progressDetail?: { current?: number; total?: number };
  aux?: { Digest?: string };
}

/** Reads an engine progress stream to its end; rejects with the engine's error message. */
function follow(docker: Docker, stream: NodeJS.ReadableStream): Promise<ProgressEvent[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (error: Error | null, events: ProgressEvent[]) => {
      if (error) return reject(error);
      const failed = events.find((event) => event.error);
      if (failed) return reject(new Error(failed.errorDetail?.message ?? failed.error));
      resolve(events);
    });
  });
}

/** The engine wants an X-Registry-Auth header on every push (an empty one for an anonymous registry). */
const authconfig = (registryHost: string, auth: RegistryAuth | null) => ({
  authconfig: auth ? { ...auth, serveraddress: registryHost } : {},
});

/** The registry host of a reference (`host[:port]/repo…`). */
export const registryHostOf = (reference: string) => reference.split("/")[0] ?? "";

/**
 * Pushes one image (by id) as `repository:tag`; resolves to `repository@<manifest digest>`, the
 * reference a pull uses. The tag is removed again here unless it is the image's only name (removing the
 * only tag would remove the image).
 */
export async function pushImage(
  docker: Docker,
  options: { imageId: string; repository: string; tag: string; auth: RegistryAuth | null },
): Promise<string> {
  const named = `${options.repository}:${options.tag}`;
  const image = docker.getImage(options.imageId);
  const before = ((await image.inspect()) as { RepoTags?: string[] }).RepoTags ?? [];
  await image.tag({ repo: options.repository, tag: options.tag });
  try {
    const stream = await docker.getImage(named).push(authconfig(registryHostOf(options.repository), options.auth));
    const events = await follow(docker, stream);
    const digest = events.map((event) => event.aux?.Digest).find((found) => found?.startsWith("sha256:"));
    if (!digest) throw new Error(`the registry answered the push of ${named} without a digest`);
    return `${options.repository}@${digest}`;
  } finally {
    if (before.some((tag) => tag !== named))
      await docker
        .getImage(named)
        .remove({ noprune: true })
        .catch(() => undefined);
  }
}

/** Pulls `repository@digest`; resolves to what moved (the engine reports each layer it fetched or had). */
export async function pullImage(
  docker: Docker,
  options: { reference: string; auth: RegistryAuth | null },
): Promise<PullReport> {
  if (!/@sha256:[0-9a-f]{64}$/.test(options.reference))
    throw new Error(`An image is pulled by digest only (repository@sha256:…), not ${options.reference}.`);
  const stream = await docker.pull(options.reference, authconfig(registryHostOf(options.reference), options.auth));
  const events = await follow(docker, stream);
  const pulled = new Set<string>();
  const present = new Set<string>();
  const sizes = new Map<string, number>();
  for (const event of events) {
    if (!event.id) continue;
    if (event.status === "Already exists") present.add(event.id);
    if (event.status === "Pull complete") pulled.add(event.id);
    if (event.status === "Downloading" && event.progressDetail?.total)
      sizes.set(event.id, Math.max(sizes.get(event.id) ?? 0, event.progressDetail.total));
  }
  let bytes = 0;
  for (const id of pulled) bytes += sizes.get(id) ?? 0;
  return { layersPulled: pulled.size, layersPresent: present.size, bytes };
}
