import type { ContainerSpec } from "./container-spec";
import type { DiskOverrun } from "./disk-budget";
import type { ContainerChange } from "./docker-changes";
import type { ImageBuild } from "./docker-build";
import type { PullReport, RegistryAuth } from "./registry-transfer";
import type { ContainerStatus, ContainerTty } from "./docker-tty";
import type { NetworkMode } from "../../../shared/project-schemas";

/**
 * Only this folder imports dockerode (this module, with docker-container.ts, docker-exec.ts and
 * docker-streams.ts): docker-runtime.ts builds the ContainerRuntime declared here, the one port the rest uses. Everything else talks to the container runtime through this narrow interface.
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
  ): Promise<{ exitCode: number; timedOut: boolean; overDisk: DiskOverrun | null; ranMs?: number | null }>;
  stopContainer(id: string, options?: { timeoutSeconds?: number }): Promise<void>;
  removeContainer(id: string): Promise<void>;
  commitContainer(
    id: string,
    options: { repository: string; tag: string; labels: Record<string, string> },
  ): Promise<string>;
  inspectImage(reference: string): Promise<ImageInfo | null>;
  /** `docker build` of a tar context with nothing fetched (no pull, RUN without network); resolves to the image id. */
  buildImage(build: ImageBuild): Promise<string>;
  removeImage(reference: string): Promise<void>;
  /** `docker save` of one image as a tar stream (a worker on another host loads it). */
  saveImage(reference: string): Promise<NodeJS.ReadableStream>;
  /** `docker load` of such a stream; resolves to what it loaded (image ids, or tags of tagged images). */
  loadImage(stream: NodeJS.ReadableStream): Promise<string[]>;
  /** Pushes an image (by id) to an OCI registry as `repository:tag` (only the layers it lacks); resolves to `repository@<digest>`. */
  pushImage(options: { imageId: string; repository: string; tag: string; auth: RegistryAuth | null }): Promise<string>;
  /** Pulls `repository@<digest>` (only the layers this engine lacks); resolves to what moved. */
  pullImage(options: { reference: string; auth: RegistryAuth | null }): Promise<PullReport>;
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
  /** Removes a removed project's bridges; returns why any stayed (a container is still on it). */
  removeProjectNetworks(projectId: string): Promise<string[]>;
  /** Removes every project bridge of ours that no container uses (any project's); returns their names. */
  removeIdleProjectNetworks(): Promise<string[]>;
  /** What the container wrote to its own layer so far (bytes; 0 when it is gone). */
  writtenBytes(id: string): Promise<number>;
  /** The paths its filesystem added, changed or deleted against its image (`docker container diff`; empty when gone). */
  containerChanges(id: string): Promise<ContainerChange[]>;
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

export type { ContainerChange, ContainerStatus, ContainerTty, ImageBuild, PullReport, RegistryAuth };

export interface TtyProcess {
  stream: NodeJS.ReadWriteStream;
  resize(columns: number, rows: number): Promise<void>;
  /** Exit code once the process has ended (null while running). */
  exitCode(): Promise<number | null>;
}
