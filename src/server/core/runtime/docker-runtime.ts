import os from "node:os";
import Docker from "dockerode";
import { LABEL, type ContainerSpec } from "./container-spec";
import { lifecycleMethods } from "./container-lifecycle";
import { resolveHostUser, type UnixUser } from "./container-user";
import { DISK_CHECK_INTERVAL_MS, type DiskOverrun } from "./disk-budget";
import { execCollect, execTty } from "./docker-exec";
import { ttyMethods, type ContainerStatus, type ContainerTty } from "./docker-tty";
import { withHostCa } from "./host-ca";
import { checkMounts, type MountPolicy } from "./mount-policy";
import { switchContainerNetwork } from "./project-network";
import { loadImage, saveImage } from "./image-transfer";
import type { NetworkMode } from "../../../shared/project-schemas";

/**
 * Only this folder imports dockerode (this module, with docker-container.ts, docker-exec.ts and
 * docker-streams.ts). Everything else talks to the container runtime through this narrow interface.
 */
export interface ContainerSummary {
  id: string;
  labels: Record<string, string>;
  state: string;
}

export interface ImageInfo {
  id: string;
  sizeBytes: number;
  architecture: string;
  labels: Record<string, string>;
}

/** An image as the engine lists it: enough to decide whether it is still needed. */
export interface ImageSummary {
  id: string;
  labels: Record<string, string>;
  repoTags: string[];
  createdAt: Date;
}

export interface ContainerRuntime {
  /** Engine version, or a readable error when the engine cannot be reached. */
  version(): Promise<{ version: string; apiVersion: string; os: string; arch: string }>;
  createContainer(spec: ContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  /**
   * Streams combined stdout/stderr lines until the container exits; resolves to the exit code. A
   * container past its time limit is stopped (`timedOut`), one past its disk budget too (`overDisk`).
   */
  runToExit(
    id: string,
    onOutput: (chunk: string) => void,
    options?: { timeoutMs?: number },
  ): Promise<{ exitCode: number; timedOut: boolean; overDisk: DiskOverrun | null }>;
  stopContainer(id: string, options?: { timeoutSeconds?: number }): Promise<void>;
  removeContainer(id: string): Promise<void>;
  commitContainer(
    id: string,
    options: { repository: string; tag: string; labels: Record<string, string> },
  ): Promise<string>;
  inspectImage(reference: string): Promise<ImageInfo | null>;
  removeImage(reference: string): Promise<void>;
  /** `docker save` of one image as a tar stream (a worker on another host loads it). */
  saveImage(reference: string): Promise<NodeJS.ReadableStream>;
  /** `docker load` of such a stream; resolves to what it loaded (image ids, or tags of tagged images). */
  loadImage(stream: NodeJS.ReadableStream): Promise<string[]>;
  /** The images carrying every one of these labels (`key=value`), e.g. a study's committed trial images. */
  listImages(labels: Record<string, string>): Promise<ImageSummary[]>;
  listManagedContainers(): Promise<ContainerSummary[]>;
  /** Runs a command in a running container and collects its output (no TTY). */
  exec(
    id: string,
    command: string[],
    options?: { env?: Record<string, string>; workingDir?: string },
  ): Promise<{ exitCode: number; output: string }>;
  /** Opens an interactive TTY process in a running container: a two-way stream plus resize (terminal sessions). */
  execTty(
    id: string,
    command: string[],
    options?: { env?: Record<string, string>; columns?: number; rows?: number },
  ): Promise<TtyProcess>;
  /** Attaches to a TTY container's main process (terminal sessions): raw bytes both ways. */
  attachTty(id: string): Promise<ContainerTty>;
  resizeTty(id: string, size: { columns: number; rows: number }): Promise<void>;
  /** Resolves to the exit code once the container's main process ends. */
  waitForExit(id: string): Promise<number>;
  /** Moves a stopped container to a network mode (its project's bridge, or none). */
  switchNetwork(id: string, options: { projectId: string; network: NetworkMode }): Promise<void>;
  /** What the container wrote to its own layer so far (bytes; 0 when it is gone). */
  writtenBytes(id: string): Promise<number>;
  /** Running or not, and its exit code; null when the container does not exist. */
  containerStatus(id: string): Promise<ContainerStatus | null>;
  /** The engine's storage driver (`overlay2`, `vfs`, …): copy-on-write workspaces want overlay2. */
  storageDriver(): Promise<string>;
  /**
   * Removes the volumes we labelled (overlay mounts carry their container's labels) that no container uses
   * any more — left by a container removed without its volumes — and that carry every one of `labels`;
   * only those made before `createdBefore` (one being made with its container is not left behind).
   */
  removeDanglingVolumes(labels: Record<string, string>, options: { createdBefore: Date }): Promise<string[]>;
}

export type { ContainerStatus, ContainerTty };

export interface TtyProcess {
  stream: NodeJS.ReadWriteStream;
  resize(columns: number, rows: number): Promise<void>;
  /** Exit code once the process has ended (null while running). */
  exitCode(): Promise<number | null>;
}

export interface DockerRuntimeOptions {
  /** unix socket path; defaults to DOCKER_HOST handling in dockerode, else /var/run/docker.sock */
  socketPath?: string;
  /** The engine client to use instead of one made from `socketPath` (tests observe what is created through it). */
  client?: Docker;
  timeoutMs?: number;
  /**
   * The host's CA bundle (resolveHostCaBundle), mounted read-only into every container that has
   * network, with SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, … pointing at it; null = containers keep their own.
   */
  hostCaBundle?: string | null;
  /**
   * Which host paths containers may mount (dataDirMountPolicy): the worker passes its data dir's folders,
   * the Codex binary's folder and the bridge scripts. Without one, the Docker socket, the host root,
   * home and system folders are still refused.
   */
  mountPolicy?: MountPolicy;
  /** Who non-root containers run as; resolveHostUser() by default (the worker's own uid:gid, never root). */
  hostUser?: UnixUser;
  /** This process's uid:gid (tests pretend to be another user); process.getuid()/getgid() by default. */
  workerUser?: UnixUser;
  /**
   * The data dir: the only folders the runtime re-owns for a container's user (a root worker) and hands
   * back after a root container. Without one, any writable mount except a `userFrom` path.
   */
  dataDir?: string;
  /** How often a container with a disk budget is measured (ms). */
  diskCheckIntervalMs?: number;
  /** Where the runtime says what it could not do (a hand-back that failed). */
  log?: (message: string) => void;
}

export const DOCKER_HINT =
  "Start the Docker engine (Linux: sudo systemctl start docker, or `sudo dockerd &`; macOS/Windows: open Docker Desktop) and make sure this user may use it (member of the docker group), or set DOCKER_HOST.";

function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { statusCode?: number }).statusCode === 404;
}

/** The runtime's mount policy, with the host CA bundle it mounts itself allowed read-only. */
function mountChecks(options: DockerRuntimeOptions) {
  return {
    policy: options.mountPolicy ?? null,
    hostHome: os.homedir(),
    readOnlyPaths: options.hostCaBundle ? [options.hostCaBundle] : [],
  };
}

/** Who containers run as, which folders are ours, and the spec's mounts checked against the policy. */
function lifecycleSettings(options: DockerRuntimeOptions) {
  return {
    hostUser: options.hostUser ?? resolveHostUser(),
    worker: options.workerUser ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    ownedRoots: options.dataDir ? [options.dataDir] : null,
    diskCheckIntervalMs: options.diskCheckIntervalMs ?? DISK_CHECK_INTERVAL_MS,
    log: options.log ?? (() => undefined),
    prepare(requested: ContainerSpec) {
      const spec = withHostCa(requested, options.hostCaBundle ?? null);
      const mounts = spec.mounts ?? [];
      checkMounts(mounts, mountChecks(options));
      return { spec, mounts };
    },
  };
}

/** The labelled volumes no container uses, removed (see ContainerRuntime.removeDanglingVolumes). */
async function removeDanglingVolumes(
  docker: Docker,
  labels: Record<string, string>,
  options: { createdBefore: Date },
): Promise<string[]> {
  const filter = [`${LABEL.managed}=true`, ...Object.entries(labels).map(([key, value]) => `${key}=${value}`)];
  const listed = await docker.listVolumes({ filters: { label: filter, dangling: ["true"] } });
  const removed: string[] = [];
  for (const volume of listed.Volumes ?? []) {
    const created = Date.parse((volume as { CreatedAt?: string }).CreatedAt ?? "");
    if (!Number.isFinite(created) || created >= options.createdBefore.getTime()) continue;
    try {
      await docker.getVolume(volume.Name).remove();
      removed.push(volume.Name);
    } catch (error) {
      // taken by a container created meanwhile, or removed by someone else: not ours to force
      if (!isNotFound(error) && (error as { statusCode?: number }).statusCode !== 409) throw error;
    }
  }
  return removed;
}

export function createDockerRuntime(options: DockerRuntimeOptions = {}): ContainerRuntime {
  const docker =
    options.client ??
    new Docker({
      ...(options.socketPath ? { socketPath: options.socketPath } : {}),
      timeout: options.timeoutMs ?? 0,
    });
  const versionClient = new Docker({
    ...(options.socketPath ? { socketPath: options.socketPath } : {}),
    timeout: options.timeoutMs ?? 5000,
  });

  return {
    async version() {
      try {
        const info = await versionClient.version();
        return { version: info.Version, apiVersion: info.ApiVersion, os: info.Os, arch: info.Arch };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`Docker engine not reachable (${reason}). ${DOCKER_HINT}`, { cause: error });
      }
    },

    ...lifecycleMethods({ docker, settings: lifecycleSettings(options) }),

    async stopContainer(id, stopOptions = {}) {
      try {
        await docker.getContainer(id).stop({ t: stopOptions.timeoutSeconds ?? 5 });
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status !== 304 && status !== 404) throw error;
      }
    },

    async inspectImage(reference) {
      try {
        const info = await docker.getImage(reference).inspect();
        return { id: info.Id, sizeBytes: info.Size, architecture: info.Architecture, labels: info.Config.Labels ?? {} };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async removeImage(reference) {
      try {
        await docker.getImage(reference).remove({ noprune: false });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },

    saveImage: (reference) => saveImage(docker, reference),
    loadImage: (stream) => loadImage(docker, stream),

    async listImages(labels) {
      const filter = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
      // all: an untagged image that others are built on is listed too
      const images = await docker.listImages({ all: true, filters: { label: filter } });
      return images.map((image) => ({
        id: image.Id,
        labels: image.Labels ?? {},
        repoTags: (image.RepoTags ?? []).filter((tag) => tag !== "<none>:<none>"),
        createdAt: new Date(image.Created * 1000),
      }));
    },

    exec: (id, command, execOptions = {}) => execCollect({ docker, id, command, ...execOptions }),

    execTty: (id, command, ttyOptions = {}) => execTty({ docker, id, command, ...ttyOptions }),

    ...ttyMethods(docker),

    switchNetwork: (id, networkOptions) => switchContainerNetwork({ docker, containerId: id, ...networkOptions }),

    async storageDriver() {
      return String(((await docker.info()) as { Driver?: string }).Driver ?? "unknown");
    },

    removeDanglingVolumes: (labels, volumeOptions) => removeDanglingVolumes(docker, labels, volumeOptions),

    async listManagedContainers() {
      const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.managed}=true`] } });
      return containers.map((c) => ({ id: c.Id, labels: c.Labels, state: c.State }));
    },
  };
}
