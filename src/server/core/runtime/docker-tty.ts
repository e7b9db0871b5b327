import type Docker from "dockerode";

/** A container whose main process has a TTY (a terminal session): its two-way stream. */
export interface ContainerTty {
  /** Raw terminal bytes both ways (a TTY has no stdout/stderr multiplexing). */
  stream: NodeJS.ReadWriteStream;
  /** Ends this attachment; the container keeps running. */
  detach: () => void;
}

export interface ContainerStatus {
  running: boolean;
  exitCode: number | null;
  startedAt: string | null;
}

function statusCode(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

/** Attaches to a TTY container's main process (stdin included); output starts from now, not from its log. */
export async function attachTty(options: { docker: Docker; id: string }): Promise<ContainerTty> {
  const container = options.docker.getContainer(options.id);
  const stream = (await container.attach({
    stream: true,
    stdin: true,
    stdout: true,
    stderr: true,
    hijack: true,
  })) as NodeJS.ReadWriteStream & { destroy?: () => void };
  return { stream, detach: () => stream.destroy?.() };
}

export async function resizeTty(options: { docker: Docker; id: string; columns: number; rows: number }) {
  try {
    await options.docker.getContainer(options.id).resize({ w: options.columns, h: options.rows });
  } catch (error) {
    // a container that is not running has no TTY to resize
    if (statusCode(error) !== 409 && statusCode(error) !== 404) throw error;
  }
}

/** Waits until the container's main process exits; resolves to its exit code. */
export async function waitForExit(options: { docker: Docker; id: string }): Promise<number> {
  const result = (await options.docker.getContainer(options.id).wait()) as { StatusCode: number };
  return result.StatusCode;
}

/** Whether the container runs, and its last exit code; null when it does not exist. */
export async function containerStatus(options: { docker: Docker; id: string }): Promise<ContainerStatus | null> {
  try {
    const info = await options.docker.getContainer(options.id).inspect();
    return {
      running: info.State.Running,
      exitCode: info.State.Running ? null : info.State.ExitCode,
      startedAt: info.State.StartedAt || null,
    };
  } catch (error) {
    if (statusCode(error) === 404) return null;
    throw error;
  }
}

/** What a container wrote to its own writable layer (Docker's SizeRw), in bytes; 0 when it is gone. */
export async function writtenBytes(options: { docker: Docker; id: string }): Promise<number> {
  // `size` is a query parameter dockerode passes on, though its types do not list it
  const sized = { size: true } as Docker.ContainerInspectOptions;
  const info = (await options.docker
    .getContainer(options.id)
    .inspect(sized)
    .catch(() => null)) as { SizeRw?: number } | null;
  return info?.SizeRw ?? 0;
}

/** The runtime's methods for TTY containers (terminal sessions). */
export function ttyMethods(docker: Docker) {
  return {
    attachTty: (id: string) => attachTty({ docker, id }),
    resizeTty: (id: string, size: { columns: number; rows: number }) => resizeTty({ docker, id, ...size }),
    waitForExit: (id: string) => waitForExit({ docker, id }),
    containerStatus: (id: string) => containerStatus({ docker, id }),
    writtenBytes: (id: string) => writtenBytes({ docker, id }),
  };
}
