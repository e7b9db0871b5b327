import fs from "node:fs/promises";
import type Docker from "dockerode";
import { LABEL, type ContainerSpec, type Mount } from "./container-spec";
import { giveLowersToContainerUser, giveToContainerUser, managedWritablePaths } from "./container-files";
import { containerIdentity, idsText, withHomeHandover, type ContainerIdentity, type UnixUser } from "./container-user";
import { DiskBudgetExceededError, folderBytes } from "./disk-budget";
import { createLimitsWatchdog } from "./limits-watchdog";
import { handBack, helperImageOnce } from "./hand-back";
import type { HelperImage } from "./helper-image";
import { containerCreateOptions, runToExit } from "./docker-container";
import type { ContainerRuntime } from "./container-runtime";
import { isNetworkMissing, projectNetworkOf, reattachToProjectNetwork, withProjectNetwork } from "./project-network";
import { removeIdleNetwork } from "./project-network-cleanup";
import { messageOf } from "../../../shared/error-message";

/** The variables a run's gateway token rides in (Codex's, a command's, Claude Code's, Gemini CLI's). */
const RUN_TOKEN_VARIABLES = ["GW_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"] as const;

/** What the runtime needs to know about the containers it creates and the process it runs in. */
export interface LifecycleSettings {
  /** Who non-root containers run as (resolveHostUser). */
  hostUser: UnixUser;
  /** This process's own user: only root may change owners on the host. */
  worker: UnixUser;
  /** The folders the runtime may re-own and measure (the data dir); null: any writable mount. */
  ownedRoots: string[] | null;
  diskCheckIntervalMs: number;
  /** Mount policy and host CA: the spec as it will be created, checked (docker-runtime.ts). */
  prepare: (spec: ContainerSpec) => { spec: ContainerSpec; mounts: Mount[] };
  log: (message: string) => void;
}

interface ContainerRecord {
  image: string;
  spec: ContainerSpec;
  identity: ContainerIdentity;
  /** Writable host folders of ours (workspace, Codex home, overlay upper layers, a build's outputs). */
  writable: string[];
  /** Writable folders other containers use at the same time (package caches): handed back only from a container. */
  shared: string[];
  /** overlayfs' work dirs: the kernel leaves a root-owned, mode-000 `work/` in each, which a worker that is not root cannot remove. */
  workDirs: string[];
  /** The id of the project bridge it was created on. */
  network: string | null;
  /** Disk the writable folders took when the container was created (its own writes are measured on top). */
  disk: { budgetBytes: number; baseline: number } | null;
}

type LifecycleMethods = Pick<
  ContainerRuntime,
  "createContainer" | "startContainer" | "runToExit" | "removeContainer" | "commitContainer"
>;

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

function message(error: unknown): string {
  return messageOf(error);
}

/** The owner of `userFrom`, when the worker is root and that owner is not: who a direct session runs as. */
async function userFor(spec: ContainerSpec, settings: LifecycleSettings): Promise<UnixUser> {
  if (!spec.userFrom || settings.worker.uid !== 0) return settings.hostUser;
  const stat = await fs.stat(spec.userFrom).catch(() => null);
  return stat && stat.uid !== 0 ? { uid: stat.uid, gid: stat.gid } : settings.hostUser;
}

/**
 * The container's environment. A non-root container keeps HOME=/root only in an image whose build
 * handed /root to its user (the `invariant.home-owner` label); in an older image /root is root's
 * (mode 700), so HOME is /tmp there — prepare the environment again to get the home back.
 */
async function environmentFor(options: {
  docker: Docker;
  spec: ContainerSpec;
  identity: ContainerIdentity;
  homeOwners: Map<string, string | null>;
}): Promise<Record<string, string> | undefined> {
  const { spec, identity } = options;
  const home = spec.env?.HOME ?? "/root";
  if (identity.root || home !== "/root") return spec.env;
  let owner = options.homeOwners.get(spec.image);
  if (owner === undefined) {
    const info = await options.docker
      .getImage(spec.image)
      .inspect()
      .catch(() => null);
    owner = info?.Config.Labels?.[LABEL.homeOwner] ?? null;
    if (spec.image.startsWith("sha256:")) options.homeOwners.set(spec.image, owner);
  }
  return owner === idsText(identity.user) ? spec.env : { ...spec.env, HOME: "/tmp" };
}

/** The runtime's state shared by the functions below: the engine, the settings, what it created. */
interface Lifecycle {
  docker: Docker;
  settings: LifecycleSettings;
  records: Map<string, ContainerRecord>;
  homeOwners: Map<string, string | null>;
  helperImage: () => Promise<HelperImage>;
}

/** Starts a container; a project bridge that went away meanwhile (a `docker network prune`) is made again. */
async function start(life: Lifecycle, id: string, options: { alreadyStartedIsFine: boolean }): Promise<void> {
  const container = life.docker.getContainer(id);
  const attempt = () =>
    container.start().catch((error: unknown) => {
      if (options.alreadyStartedIsFine && statusOf(error) === 304) return;
      throw error;
    });
  const record = life.records.get(id);
  try {
    await attempt();
  } catch (error) {
    if (/setting rlimit/i.test(message(error)))
      throw new Error(
        `The Docker engine could not give the container ${record?.spec.limits.openFiles ?? "its"} open files (its own limit is lower): lower the project's "Open files" setting. (${message(error)})`,
        { cause: error },
      );
    if (!record?.network || !isNetworkMissing(error)) throw error;
    // a container that did start (and maybe already ended) is never started twice
    const state = (await container.inspect().catch(() => null))?.State.Status;
    if (state !== "created") throw error;
    await reattachToProjectNetwork({ docker: life.docker, containerId: id, projectId: record.spec.labels.project });
    await attempt();
  }
}

/** The engine's create call for a checked spec: its environment, a build's home handover, its network. */
async function create(
  life: Lifecycle,
  options: { spec: ContainerSpec; mounts: Mount[]; identity: ContainerIdentity; network: string | null },
): Promise<Docker.Container> {
  const { identity, mounts, network } = options;
  const env = await environmentFor({ docker: life.docker, spec: options.spec, identity, homeOwners: life.homeOwners });
  const command = options.spec.command;
  const spec = {
    ...options.spec,
    env,
    command: identity.homeOwner ? withHomeHandover(command, identity.homeOwner) : command,
  };
  return life.docker.createContainer(containerCreateOptions({ spec, mounts, identity, networkId: network }));
}

async function createContainer(life: Lifecycle, requested: ContainerSpec): Promise<string> {
  const { docker, settings } = life;
  const { spec, mounts } = settings.prepare(requested);
  const identity = containerIdentity({ spec, user: await userFor(spec, settings) });
  const { exclusive: writable, shared } = managedWritablePaths({
    mounts,
    roots: settings.ownedRoots,
    keep: spec.userFrom,
  });
  if (!identity.root && settings.worker.uid === 0 && identity.user.uid !== 0) {
    await giveToContainerUser({ paths: writable, user: identity.user, worker: settings.worker });
    await giveLowersToContainerUser({ mounts, roots: settings.ownedRoots, user: identity.user });
  }
  const workDirs = mounts.flatMap((mount) => (mount.overlay ? [mount.overlay.workDir] : []));
  const budgetBytes = spec.diskBudgetBytes ?? null;
  const disk = budgetBytes ? { budgetBytes, baseline: await folderBytes(writable) } : null;
  // on the bridge's id, created while holding its lock: no other process removes it, or makes a twin, meanwhile
  const { container, network } =
    spec.network === "internet"
      ? await withProjectNetwork({ docker, projectId: spec.labels.project }, async (id) => ({
          container: await create(life, { spec, mounts, identity, network: id }),
          network: id,
        }))
      : { container: await create(life, { spec, mounts, identity, network: null }), network: null };
  life.records.set(container.id, { image: spec.image, spec, identity, writable, shared, workDirs, network, disk });
  return container.id;
}

/** What a container wrote so far: its writable layer (Docker's SizeRw) and its folders' growth since it was created. */
async function writtenSoFar(life: Lifecycle, id: string, record: ContainerRecord, baseline: number): Promise<number> {
  // `size` is a query parameter dockerode passes on, though its types do not list it
  const sized = { size: true } as Docker.ContainerInspectOptions;
  const info = (await life.docker.getContainer(id).inspect(sized)) as { SizeRw?: number };
  return (info.SizeRw ?? 0) + (await folderBytes(record.writable)) - baseline;
}

/** A container's disk budget as the watchdog holds it: the budget, the baseline, the folders to measure. */
function diskWatch(life: Lifecycle, id: string) {
  const record = life.records.get(id);
  const disk = record?.disk;
  if (!record || !disk) return null;
  return {
    budgetBytes: disk.budgetBytes,
    baseline: disk.baseline,
    folders: record.writable,
    intervalMs: life.settings.diskCheckIntervalMs,
    measure: () => writtenSoFar(life, id, record, disk.baseline),
  };
}

/**
 * Measures a container with a disk budget once more before it is committed: one that ended past its
 * budget between two checks (or wrote it all just before it exited) is refused, never kept as an image.
 */
async function refuseOverBudget(life: Lifecycle, id: string): Promise<void> {
  const record = life.records.get(id);
  if (!record?.disk) return;
  const usedBytes = await writtenSoFar(life, id, record, record.disk.baseline);
  if (usedBytes > record.disk.budgetBytes)
    throw new DiskBudgetExceededError({ usedBytes, budgetBytes: record.disk.budgetBytes });
}

/** The project bridge a container is on (asked of the engine: a resumed session may have changed it). */
async function networkOf(life: Lifecycle, id: string): Promise<string | null> {
  return (await projectNetworkOf(life.docker, id)) ?? life.records.get(id)?.network ?? null;
}

async function removeContainer(life: Lifecycle, id: string): Promise<void> {
  const network = await networkOf(life, id);
  try {
    await life.docker.getContainer(id).remove({ force: true, v: true });
  } catch (error) {
    if (statusOf(error) !== 404 && !/already in progress/.test(String(error))) throw error;
  }
  const record = life.records.get(id);
  life.records.delete(id);
  if (record)
    await handBack({
      docker: life.docker,
      worker: life.settings.worker,
      record: { ...record, labels: record.spec.labels },
      helperImage: life.helperImage,
    }).catch((error: unknown) =>
      life.settings.log(
        `runtime: could not hand ${record.writable.join(", ")} back to ${idsText(record.identity.filesOwner)}: ${message(error)}`,
      ),
    );
  if (network) await removeIdleNetwork({ docker: life.docker, network }).catch(() => undefined);
}

/**
 * Creating, starting, running, committing and removing containers, with the rules every role gets from
 * here: who it runs as (and the folders that user must own), its capabilities, its network, and its disk
 * budget; afterwards what a root container left in our folders goes back to the host user, and an idle
 * project bridge goes away.
 */
export function lifecycleMethods(options: { docker: Docker; settings: LifecycleSettings }): LifecycleMethods {
  const life: Lifecycle = {
    ...options,
    records: new Map(),
    homeOwners: new Map(),
    helperImage: helperImageOnce(options.docker),
  };
  const { docker } = options;
  const watchdog = createLimitsWatchdog({ docker, log: options.settings.log });
  return {
    createContainer: (requested) => createContainer(life, requested),
    startContainer: (id) => start(life, id, { alreadyStartedIsFine: false }),
    runToExit: (id, onOutput, runOptions = {}) =>
      runToExit({
        docker,
        id,
        onOutput,
        ...runOptions,
        start: () => start(life, id, { alreadyStartedIsFine: true }),
        disk: diskWatch(life, id),
        watchdog,
      }),
    removeContainer: (id) => removeContainer(life, id),
    async commitContainer(id, commitOptions) {
      // a build's image says whom it handed /root to
      await refuseOverBudget(life, id);
      const homeOwner = life.records.get(id)?.identity.homeOwner;
      const labels = { ...commitOptions.labels, ...(homeOwner ? { [LABEL.homeOwner]: idsText(homeOwner) } : {}) };
      // a run's gateway token never goes into an image (a continued result gets a token of its own),
      // under any of the names the agent CLIs read it by; a container that had none (a build, a session)
      // adds no empty variable to its image either
      const container = docker.getContainer(id);
      const env = ((await container.inspect()) as { Config?: { Env?: string[] | null } }).Config?.Env ?? [];
      const tokens = RUN_TOKEN_VARIABLES.filter((name) => env.some((entry) => entry.startsWith(`${name}=`)));
      const result = (await container.commit({
        repo: commitOptions.repository,
        tag: commitOptions.tag,
        pause: true,
        changes: [
          ...Object.entries(labels).map(([key, value]) => `LABEL ${key}=${JSON.stringify(value)}`),
          ...tokens.map((name) => `ENV ${name}=`),
        ],
      })) as { Id: string };
      return result.Id;
    },
  };
}
