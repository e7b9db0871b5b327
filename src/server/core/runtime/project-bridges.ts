import type Docker from "dockerode";
import { LABEL } from "./container-spec";
import { FileLockTimeoutError, withFileLock } from "../locks/file-lock";

/**
 * The project bridges as the engine holds them: their names, the host-wide lock every change to one
 * project's bridges takes, listing them by label, and whether a container still uses one.
 */
const PREFIX = "invariant-project-";

export function projectNetworkName(projectId: string): string {
  return `${PREFIX}${projectId.toLowerCase().replace(/[^a-z0-9_.-]/g, "-")}`;
}

export function isProjectNetwork(name: string | undefined): name is string {
  return name !== undefined && name.startsWith(PREFIX);
}

export interface Bridge {
  id: string;
  name: string;
  projectId: string;
  created: string;
}

/**
 * Runs `task` holding the lock of the project's bridge, shared by every process on this host (the web
 * process, each worker): creating, attaching to and removing the bridge never interleave, so two
 * processes never both create it. A lock that cannot be had (its folder not writable, held past a
 * minute) runs the task anyway: the bridge may then get a twin, which the next creator reconciles.
 */
export async function withBridgeLock<T>(projectId: string, task: () => Promise<T>): Promise<T> {
  let ran = false;
  const once = () => {
    ran = true;
    return task();
  };
  try {
    return await withFileLock(projectNetworkName(projectId), once);
  } catch (error) {
    if (ran || !(error instanceof FileLockTimeoutError || (error as NodeJS.ErrnoException).code)) throw error;
    return task();
  }
}

/** Our bridges (labelled managed, with a project, named as a project bridge), of one project or all, oldest first. */
export async function listBridges(docker: Docker, projectId?: string): Promise<Bridge[]> {
  const label = [`${LABEL.managed}=true`, projectId ? `${LABEL.project}=${projectId}` : LABEL.project];
  const listed = await docker.listNetworks({ filters: { label } });
  return listed
    .map((network) => ({
      id: network.Id,
      name: network.Name,
      projectId: network.Labels?.[LABEL.project] ?? "",
      created: network.Created,
    }))
    .filter((bridge) => bridge.projectId !== "" && bridge.name === projectNetworkName(bridge.projectId))
    .sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || a.id.localeCompare(b.id));
}

const NETWORK_ID = /^[0-9a-f]{64}$/;

/**
 * Whether a container is on this bridge. A started container names the network's id; one only created
 * names it in its network mode (by id, or by name when an older version created it), and under the name
 * alone it might be on a twin: counted as a user then, so a bridge is never taken from under a container.
 */
function usesBridge(container: Docker.ContainerInfo, bridge: Bridge): boolean {
  const mode = container.HostConfig.NetworkMode;
  const endpoint = container.NetworkSettings.Networks[bridge.name];
  if (endpoint?.NetworkID) return endpoint.NetworkID === bridge.id;
  if (NETWORK_ID.test(mode)) return mode === bridge.id;
  return endpoint !== undefined || mode === bridge.name;
}

/** Removes the bridge if no container (running or not) is on it; true when it is gone. Hold its lock. */
export async function removeIfIdle(docker: Docker, bridge: Bridge): Promise<boolean> {
  const [byId, byName] = await Promise.all([
    docker.listContainers({ all: true, filters: { network: [bridge.id] } }),
    docker.listContainers({ all: true, filters: { network: [bridge.name] } }),
  ]);
  if (byId.length > 0 || byName.some((container) => usesBridge(container, bridge))) return false;
  try {
    await docker.getNetwork(bridge.id).remove();
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404) return true; // removed meanwhile
    if (status === 403 || status === 409) return false; // a container joined it after all
    throw error;
  }
  return true;
}
