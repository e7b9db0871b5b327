import type { NetworkMode } from "../../../shared/project-schemas";

/** Labels on every container and image we create, so a restarted worker can reconcile. */
export const LABEL = {
  managed: "invariant.managed",
  project: "invariant.project",
  study: "invariant.study",
  trial: "invariant.trial",
  session: "invariant.session",
  environment: "invariant.environment",
  role: "invariant.role",
  worker: "invariant.worker",
  workerHost: "invariant.worker-host",
  workerPid: "invariant.worker-pid",
  /** On a committed trial image: the run (`<trial>-<attempt>`) it was committed from. */
  run: "invariant.run",
  /** On an environment image: the dependency folder (dependencies/<id>/) whose outputs trials mount. */
  dependencies: "invariant.dependencies",
  /** On an environment image: the dependency step's output folders, comma-separated (node_modules,.venv). */
  dependencyOutputs: "invariant.dependency-outputs",
  /** Which installation (one Redis = one instance) the owning worker belongs to. */
  instance: "invariant.instance",
  /** On a terminal session's container: which data dir's web process owns it (a hash of its path). */
  sessionOwner: "invariant.session-owner",
  /** On an environment image: the uid:gid its build handed /root to (containers running as that user keep HOME=/root). */
  homeOwner: "invariant.home-owner",
} as const;

/** The worker that owns a container. `instance` scopes reconciliation to one installation. */
export interface WorkerIdentity {
  id: string;
  host: string;
  pid: number;
  instance?: string;
}

export type ContainerRole = "prepare" | "agent" | "evaluation" | "session" | "probe";

export interface ContainerLabels {
  project: string;
  role: ContainerRole;
  environment?: string;
  study?: string;
  trial?: string;
  session?: string;
  /** Terminal sessions: the owning web process's data dir, hashed (sessionOwnerOf). */
  sessionOwner?: string;
  worker?: WorkerIdentity;
}

/**
 * Labels that say which run owns a container. A container inherits its image's labels, and a committed
 * image (an environment's prepare container, a trial's agent, a session) carries its container's: so
 * every container we create sets these, empty when the spec names none, and is never taken for the run
 * its image came from (a session in a trial's result image removed as that trial's worker's orphan).
 */
const OWNERSHIP_LABELS = [
  LABEL.environment,
  LABEL.study,
  LABEL.trial,
  LABEL.session,
  LABEL.sessionOwner,
  LABEL.worker,
  LABEL.workerHost,
  LABEL.workerPid,
  LABEL.instance,
  LABEL.run,
] as const;

export function toDockerLabels(labels: ContainerLabels): Record<string, string> {
  return {
    ...Object.fromEntries(OWNERSHIP_LABELS.map((key) => [key, ""])),
    [LABEL.managed]: "true",
    [LABEL.project]: labels.project,
    [LABEL.role]: labels.role,
    ...(labels.environment ? { [LABEL.environment]: labels.environment } : {}),
    ...(labels.study ? { [LABEL.study]: labels.study } : {}),
    ...(labels.trial ? { [LABEL.trial]: labels.trial } : {}),
    ...(labels.session ? { [LABEL.session]: labels.session } : {}),
    ...(labels.sessionOwner ? { [LABEL.sessionOwner]: labels.sessionOwner } : {}),
    ...(labels.worker
      ? {
          [LABEL.worker]: labels.worker.id,
          [LABEL.workerHost]: labels.worker.host,
          [LABEL.workerPid]: String(labels.worker.pid),
        }
      : {}),
    ...(labels.worker?.instance ? { [LABEL.instance]: labels.worker.instance } : {}),
  };
}

export interface ResourceLimits {
  cpus: number;
  memoryBytes: number;
  swapBytes: number;
  pids: number;
  /** Open files per process: the `nofile` ulimit, soft and hard (DEFAULT_OPEN_FILES when absent). */
  openFiles?: number;
}

/** The `nofile` ulimit when a spec names none (the engine's own default varies from 1,024 to unlimited). */
export { DEFAULT_OPEN_FILES } from "../../../shared/project-schemas";

export interface Mount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
  /**
   * Mount `hostPath` as the read-only lower layer of an overlay: the container may write, its writes
   * land in `upperDir` (with overlayfs' `workDir` beside it, both on one filesystem) and never reach
   * `hostPath`. Made by Docker's `local` volume driver as an anonymous volume, so no host privileges
   * are needed and removing the container removes the volume.
   */
  overlay?: {
    upperDir: string;
    workDir: string;
    /** More read-only layers between `upperDir` and `hostPath`, topmost first (an evaluation over an agent's layer). */
    lowerDirs?: string[];
    /**
     * overlayfs keeps its marks (opaque directories) in `user.overlay.*` attributes instead of `trusted.*`
     * ones, so the host can read a layer without root (copy-on-write workspaces, workspace-files.ts).
     */
    userXattr?: boolean;
  };
  /**
   * Mounted by several containers at once (the package caches of concurrent dependency steps): never
   * re-owned by a root worker itself, whose `chown` a container could race with a symlink; only by a
   * short container (whose view of any symlink is its own) for a worker that is not root.
   */
  shared?: boolean;
}

/**
 * Everything a container may get. Its mounts pass the runtime's mount policy (mount-policy.ts) before
 * the container is created: only the data dir's folders, a project's directory and a few read-only files.
 * Who it runs as, its capabilities, ulimits and network follow from the spec in one place
 * (container-user.ts, docker-container.ts): every role gets the same rules.
 */
export interface ContainerSpec {
  image: string;
  command: string[];
  env?: Record<string, string>;
  workingDir?: string;
  labels: ContainerLabels;
  limits: ResourceLimits;
  /** `none`: Docker's null network. `internet`: the project's own bridge (never Docker's default one). */
  network: NetworkMode;
  mounts?: Mount[];
  tty?: boolean;
  /**
   * The project's "Run as root" switch: root inside the container, with the capabilities package
   * managers need. Off (default): the host user's uid:gid and no capabilities. Builds (role `prepare`)
   * always run as root: installing system packages is what they are for.
   */
  runAsRoot?: boolean;
  /**
   * When the worker runs as root: run as the owner of this host path instead of the stand-in user
   * (a direct session passes the project directory, so what it writes there stays its owner's).
   */
  userFrom?: string;
  /**
   * Stop the container once what it wrote (its writable layer, and the growth of its writable folders
   * in the data dir) passes this many bytes; checked every few seconds while runToExit waits.
   */
  diskBudgetBytes?: number | null;
}
