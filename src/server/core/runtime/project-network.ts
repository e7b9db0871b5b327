import type Docker from "dockerode";
import { LABEL } from "./container-spec";
import { messageOf } from "../../../shared/error-message";

/**
 * Containers in network mode `internet` go on their project's own bridge, never Docker's default one:
 * Docker isolates user-defined bridges from each other, so a container cannot reach another project's
 * containers, and inter-container traffic is off inside the bridge too (two trials of one study cannot
 * talk to each other either). A bridge exists while containers use it: it is created on demand and
 * removed with its last container, so bridges never pile up (Docker's default address pools hold only
 * about 30 networks).
 */
const PREFIX = "invariant-project-";

export function projectNetworkName(projectId: string): string {
  return `${PREFIX}${projectId.toLowerCase().replace(/[^a-z0-9_.-]/g, "-")}`;
}

export function isProjectNetwork(name: string | undefined): name is string {
  return name !== undefined && name.startsWith(PREFIX);
}

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

/** Docker's "network … not found" at create or start: the bridge went away in between (another worker removed it idle). */
export function isNetworkMissing(error: unknown): boolean {
  return /network\b.*\bnot found/i.test(messageOf(error));
}

const POOLS_HINT =
  "Docker has no address range left for another network. Each project in network mode internet gets its own bridge while it runs containers; remove networks you no longer need (docker network prune) or give the engine more address pools (default-address-pools in daemon.json).";

/**
 * Docker lets two `createNetwork` calls with one name both succeed (CheckDuplicate is best effort), and a
 * name two networks share is then "ambiguous" to every later call. When that happened, the oldest one is
 * kept (any container created in between is on it: the name meant it alone until the second existed) and
 * the others go; every creator does the same, so they agree without talking.
 */
async function keepOldest(docker: Docker, name: string): Promise<void> {
  const listed = await docker.listNetworks({ filters: { name: [name] } });
  const same = listed
    .filter((network) => network.Name === name)
    .sort((a, b) => Date.parse(a.Created) - Date.parse(b.Created) || a.Id.localeCompare(b.Id));
  for (const extra of same.slice(1))
    await docker
      .getNetwork(extra.Id)
      .remove()
      .catch(() => undefined);
}

/** Docker's "network … is ambiguous": two networks share the bridge's name (see keepOldest). */
export function isNetworkAmbiguous(error: unknown): boolean {
  return /ambiguous/i.test(messageOf(error));
}

/** Creations in this process, one per bridge name at a time (two trials of one project on one worker). */
const creating = new Map<string, Promise<string>>();

/** The project's bridge, created if missing (a concurrent creation here or by another process is fine). */
export function ensureProjectNetwork(options: { docker: Docker; projectId: string }): Promise<string> {
  const name = projectNetworkName(options.projectId);
  const pending = creating.get(name);
  if (pending) return pending;
  const made = createOnce({ docker: options.docker, projectId: options.projectId, name }).finally(() =>
    creating.delete(name),
  );
  creating.set(name, made);
  return made;
}

async function createOnce(options: { docker: Docker; projectId: string; name: string }): Promise<string> {
  const { docker, name } = options;
  try {
    await docker.getNetwork(name).inspect();
    return name;
  } catch (error) {
    if (isNetworkAmbiguous(error)) {
      await keepOldest(docker, name);
      return name;
    }
    if (statusOf(error) !== 404) throw error;
  }
  try {
    await docker.createNetwork({
      Name: name,
      Driver: "bridge",
      CheckDuplicate: true,
      Labels: { [LABEL.managed]: "true", [LABEL.project]: options.projectId },
      Options: { "com.docker.network.bridge.enable_icc": "false" },
    });
  } catch (error) {
    if (statusOf(error) === 409) return name; // created meanwhile
    const text = messageOf(error);
    if (/non-overlapping|address pool/i.test(text)) throw new Error(`${POOLS_HINT} (${text})`, { cause: error });
    throw error;
  }
  await keepOldest(docker, name);
  return name;
}

/** Removes the bridge if no container (running or not) is on it any more; a removal that loses a race is ignored. */
export async function removeIdleNetwork(options: { docker: Docker; name: string }): Promise<void> {
  const users = await options.docker.listContainers({ all: true, filters: { network: [options.name] } });
  if (users.length > 0) return;
  await options.docker
    .getNetwork(options.name)
    .remove()
    .catch(() => undefined);
}

/**
 * Puts a stopped container on the network of `network` mode (a session resumed after its project's mode
 * changed): off every other network, onto the project's bridge or Docker's null network. A bridge it
 * leaves goes away when idle. The DNS options a container created without network got stay, and only
 * make a lookup give up sooner.
 */
export async function switchContainerNetwork(options: {
  docker: Docker;
  containerId: string;
  projectId: string;
  network: "none" | "internet";
}): Promise<void> {
  const { docker, containerId } = options;
  const info = await docker.getContainer(containerId).inspect();
  const current = Object.keys(info.NetworkSettings.Networks ?? {});
  const target =
    options.network === "none" ? "none" : await ensureProjectNetwork({ docker, projectId: options.projectId });
  if (current.length === 1 && current[0] === target) return;
  for (const name of current.filter((name) => name !== target))
    await docker.getNetwork(name).disconnect({ Container: containerId, Force: true });
  if (!current.includes(target)) await docker.getNetwork(target).connect({ Container: containerId });
  for (const name of current.filter(isProjectNetwork))
    if (name !== target) await removeIdleNetwork({ docker, name }).catch(() => undefined);
}

/** The project bridge an existing container is on, whatever it was created with; null for none. */
export async function projectNetworkOf(docker: Docker, containerId: string): Promise<string | null> {
  const info = await docker
    .getContainer(containerId)
    .inspect()
    .catch(() => null);
  if (!info) return null;
  const names = [...Object.keys(info.NetworkSettings.Networks ?? {}), info.HostConfig.NetworkMode];
  return names.find(isProjectNetwork) ?? null;
}
