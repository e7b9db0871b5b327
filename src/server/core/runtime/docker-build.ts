import type Docker from "dockerode";

/** What `buildImage` builds: a tar context, offline (see ContainerRuntime.buildImage). */
export interface ImageBuild {
  /** The build context as a tar stream, the Dockerfile among its entries. */
  context: NodeJS.ReadableStream;
  /** The Dockerfile's path inside the context. */
  dockerfile: string;
  buildArgs: Record<string, string>;
  target: string | null;
  labels: Record<string, string>;
  /** The project's memory limit for the build's RUN steps (bytes); none when unset. */
  memoryBytes?: number | null;
  /** The build is abandoned (the engine cancels it) after this long. */
  timeoutMs: number;
  onOutput: (chunk: string) => void;
}

interface BuildMessage {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/**
 * `docker build` on the engine with nothing fetched: no pull (a missing FROM fails, it is never pulled),
 * RUN steps without network (`networkmode: none`), intermediate containers always removed. Resolves to
 * the built image's id; a failed step rejects with the engine's message.
 */
export async function buildImage(docker: Docker, build: ImageBuild): Promise<string> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), build.timeoutMs);
  try {
    return await runBuild(docker, build, abort.signal);
  } catch (error) {
    if (abort.signal.aborted)
      throw new Error(`docker build stopped after ${Math.round(build.timeoutMs / 1000)} s (the prepare time limit)`, {
        cause: error,
      });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function runBuild(docker: Docker, build: ImageBuild, signal: AbortSignal): Promise<string> {
  const stream = await docker.buildImage(build.context, {
    abortSignal: signal,
    dockerfile: build.dockerfile,
    buildargs: build.buildArgs,
    ...(build.target ? { target: build.target } : {}),
    labels: build.labels,
    pull: false,
    networkmode: "none",
    rm: true,
    forcerm: true,
    version: "1",
    ...(build.memoryBytes ? { memory: build.memoryBytes, memswap: build.memoryBytes } : {}),
  });
  let imageId: string | null = null;
  let failure: string | null = null;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error) => (error ? reject(error) : resolve()),
      (message: BuildMessage) => {
        if (message.stream) build.onOutput(message.stream);
        else if (message.status) build.onOutput(`${message.status}\n`);
        if (message.aux?.ID) imageId = message.aux.ID;
        if (message.error) {
          failure = message.errorDetail?.message ?? message.error;
          build.onOutput(`${failure}\n`);
        }
      },
    );
  });
  if (failure) throw new Error(`docker build failed: ${String(failure)}`);
  if (!imageId) throw new Error("docker build finished without naming the image it built");
  return imageId;
}
