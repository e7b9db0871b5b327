import Docker from "dockerode";

/**
 * The only module that imports dockerode. Everything else talks to the container runtime through
 * this narrow interface (the environments work extends it with containers, images and networks).
 */
export interface ContainerRuntime {
  /** Engine version, or a readable error when the engine cannot be reached. */
  version(): Promise<{ version: string; apiVersion: string; os: string; arch: string }>;
}

export interface DockerRuntimeOptions {
  /** unix socket path; defaults to DOCKER_HOST handling in dockerode, else /var/run/docker.sock */
  socketPath?: string;
  timeoutMs?: number;
}

export const DOCKER_HINT =
  "Start the Docker engine (Linux: sudo systemctl start docker, or `sudo dockerd &`; macOS/Windows: open Docker Desktop) and make sure this user may use it (member of the docker group), or set DOCKER_HOST.";

export function createDockerRuntime(options: DockerRuntimeOptions = {}): ContainerRuntime {
  const docker = new Docker({ ...(options.socketPath ? { socketPath: options.socketPath } : {}), timeout: options.timeoutMs ?? 5000 });
  return {
    async version() {
      try {
        const info = await docker.version();
        return { version: info.Version, apiVersion: info.ApiVersion, os: info.Os, arch: info.Arch };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`Docker engine not reachable (${reason}). ${DOCKER_HINT}`, { cause: error });
      }
    },
  };
}
