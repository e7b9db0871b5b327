import type Docker from "dockerode";
import { LABEL } from "./container-spec";
import { isProjectNetwork, listBridges, projectNetworkName, removeIfIdle, withBridgeLock } from "./project-bridges";
import { removeIdleNetwork } from "./project-network-cleanup";
import { messageOf } from "../../../shared/error-message";

/**
 * Containers in network mode `internet` go on their project's own bridge, never Docker's default one:
 * Docker isolates user-defined bridges from each other, so a container cannot reach another project's
 * containers, and inter-container traffic is off inside the bridge too (two trials of one study cannot
 * talk to each other either). A bridge exists while containers use it: it is created on demand and
 * removed with its last container, so bridges never pile up (Docker's default address pools hold only
 * about 30 networks). Containers are created on the bridge's id, never its name: a name two networks
 * share (Docker lets two creations of one name both succeed) is "ambiguous" to the engine.
 */
export { isProjectNetwork, projectNetworkName };

/** Docker's "network … not found" at create or start: the bridge went away in between. */
export function isNetworkMissing(error: unknown): boolean {
  return /network\b.*\bnot found/i.test(messageOf(error));
}

const POOLS_HINT =
  "Docker has no address range left for another network. Each project in network mode internet gets its own bridge while it runs containers; remove networks you no longer need (docker network prune) or give the engine more address pools (default-address-pools in daemon.json).";

/**
 * The project's bridge, created if it has none; its id. Twins (made by an older version, or by a process
 * that could not take the lock) are reconciled: the oldest is kept — containers created in between are
 * on it — and the others go once no container uses them. Hold the bridge's lock.
 */
async function findOrCreate(docker: Docker, projectId: string): Promise<string> {
  let bridges = await listBridges(docker, projectId);
  if (bridges.length === 0) {
    try {
      await docker.createNetwork({
        Name: projectNetworkName(projectId),
        Driver: "bridge",
        CheckDuplicate: true,
        Labels: { [LABEL.managed]: "true", [LABEL.project]: projectId },
        Options: { "com.docker.network.bridge.enable_icc": "false" },
      });
    } catch (error) {
      const text = messageOf(error);
      if (/non-overlapping|address pool/i.test(text)) throw new Error(`${POOLS_HINT} (${text})`, { cause: error });
      if ((error as { statusCode?: number }).statusCode !== 409) throw error; // 409: made meanwhile
    }
    bridges = await listBridges(docker, projectId);
  }
  const [kept, ...twins] = bridges;
  if (!kept) throw new Error(`Docker did not keep the network ${projectNetworkName(projectId)} it just created.`);
  for (const twin of twins) await removeIfIdle(docker, twin).catch(() => undefined);
  return kept.id;
}

/**
 * Runs `task` with the id of the project's bridge (created if missing), holding its lock: no other
 * process removes the bridge as idle, or makes a second one, until the task has put its container on
 * it. A bridge removed by someone else anyway (`docker network prune`) is made again, once.
 */
export function withProjectNetwork<T>(
  options: { docker: Docker; projectId: string },
  task: (networkId: string) => Promise<T>,
): Promise<T> {
  const { docker, projectId } = options;
  return withBridgeLock(projectId, async () => {
    try {
      return await task(await findOrCreate(docker, projectId));
    } catch (error) {
      if (!isNetworkMissing(error)) throw error;
      return task(await findOrCreate(docker, projectId));
    }
  });
}

/** The id of the project's bridge, created if missing (a concurrent creation here or by another process is fine). */
export function ensureProjectNetwork(options: { docker: Docker; projectId: string }): Promise<string> {
  return withProjectNetwork(options, (id) => Promise.resolve(id));
}

/** The networks a container is on: the engine's key (the name) and id (empty while it was never started). */
function networksOf(info: Docker.ContainerInspectInfo): { name: string; id: string }[] {
  return Object.entries(info.NetworkSettings.Networks ?? {}).map(([name, endpoint]) => ({
    name,
    id: endpoint.NetworkID,
  }));
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
  const current = networksOf(await docker.getContainer(containerId).inspect());
  const moveTo = async (target: { name: string; id: string }) => {
    const on = (network: { name: string; id: string }) =>
      target.id ? network.id === target.id : network.name === target.name;
    if (current.length === 1 && current.every(on)) return;
    for (const network of current.filter((network) => !on(network)))
      await docker.getNetwork(network.name).disconnect({ Container: containerId, Force: true });
    if (!current.some(on)) await docker.getNetwork(target.id || target.name).connect({ Container: containerId });
  };
  if (options.network === "none") await moveTo({ name: "none", id: "" });
  else
    await withProjectNetwork({ docker, projectId: options.projectId }, (id) =>
      moveTo({ name: projectNetworkName(options.projectId), id }),
    );
  for (const network of current.filter((network) => isProjectNetwork(network.name)))
    await removeIdleNetwork({ docker, network: network.id || network.name }).catch(() => undefined);
}

/**
 * Puts a created container whose bridge went away before it started (a `docker network prune`) on the
 * project's bridge as it is now: off the missing one, onto the current one by id.
 */
export async function reattachToProjectNetwork(options: {
  docker: Docker;
  containerId: string;
  projectId: string;
}): Promise<void> {
  const { docker, containerId } = options;
  const stale = networksOf(await docker.getContainer(containerId).inspect()).filter((network) =>
    isProjectNetwork(network.name),
  );
  await withProjectNetwork({ docker, projectId: options.projectId }, async (id) => {
    for (const network of stale)
      await docker
        .getNetwork(network.name)
        .disconnect({ Container: containerId, Force: true })
        .catch(() => undefined);
    await docker.getNetwork(id).connect({ Container: containerId });
  });
}

/** The project bridge an existing container is on (its id, or its name for a container an older version created); null for none. */
export async function projectNetworkOf(docker: Docker, containerId: string): Promise<string | null> {
  const info = await docker
    .getContainer(containerId)
    .inspect()
    .catch(() => null);
  if (!info) return null;
  const bridge = networksOf(info).find((network) => isProjectNetwork(network.name));
  if (bridge?.id) return bridge.id;
  const mode = info.HostConfig.NetworkMode;
  if (/^[0-9a-f]{64}$/.test(mode ?? "") || isProjectNetwork(mode)) return mode ?? null;
  return bridge?.name ?? null;
}
