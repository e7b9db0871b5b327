import os from "node:os";
import { containerChanges } from "./docker-changes";
import Docker from "dockerode";
import { LABEL, type ContainerSpec } from "./container-spec";
import { lifecycleMethods } from "./container-lifecycle";
import { resolveHostUser, type UnixUser } from "./container-user";
import { DISK_CHECK_INTERVAL_MS } from "./disk-budget";
import { execCollect, execTty } from "./docker-exec";
import { ttyMethods } from "./docker-tty";
import type { ContainerRuntime } from "./container-runtime";
import { DOCKER_HINT, DockerUnreachableError, guardReachability } from "./docker-reachability";
import { withHostCa } from "./host-ca";
import { withOfflineNpm } from "./offline-npm";
import { checkMounts, type MountPolicy } from "./mount-policy";
import { switchContainerNetwork } from "./project-network";
import { removeIdleProjectNetworks, removeProjectNetworks } from "./project-network-cleanup";
import { loadImage, saveImage } from "./image-transfer";
import { pullImage, pushImage } from "./registry-transfer";
import { buildImage } from "./docker-build";
import { messageOf } from "../../../shared/error-message";

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

export { DOCKER_HINT };

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
      const spec = withOfflineNpm(withHostCa(requested, options.hostCaBundle ?? null));
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

  // an engine that cannot be reached fails every call with "Docker is not reachable" and what to do
  return guardReachability<ContainerRuntime>({
    async version() {
      try {
        const info = await versionClient.version();
        return { version: info.Version, apiVersion: info.ApiVersion, os: info.Os, arch: info.Arch };
      } catch (error) {
        throw new DockerUnreachableError(messageOf(error), { cause: error });
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

    buildImage: (build) => buildImage(docker, build),
    saveImage: (reference) => saveImage(docker, reference),
    loadImage: (stream) => loadImage(docker, stream),
    pushImage: (options) => pushImage(docker, options),
    pullImage: (options) => pullImage(docker, options),

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
    removeProjectNetworks: (projectId) => removeProjectNetworks({ docker, projectId }),
    removeIdleProjectNetworks: () => removeIdleProjectNetworks({ docker }),

    async storageDriver() {
      return String(((await docker.info()) as { Driver?: string }).Driver ?? "unknown");
    },

    containerChanges: (id) => containerChanges({ docker, id }),

    removeDanglingVolumes: (labels, volumeOptions) => removeDanglingVolumes(docker, labels, volumeOptions),

    async listManagedContainers() {
      const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.managed}=true`] } });
      return containers.map((c) => ({ id: c.Id, labels: c.Labels, state: c.State }));
    },
  });
}
