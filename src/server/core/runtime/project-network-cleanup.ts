import type Docker from "dockerode";
import { LABEL } from "./container-spec";
import { listBridges, removeIfIdle, withBridgeLock, type Bridge } from "./project-bridges";

/**
 * Removing project bridges: the one a removed container was on once idle, all of a removed project's,
 * and at a worker's start and stop every one of ours no container uses (left by trials that never got a
 * container, or by a process that died). Only networks labelled as ours and named as a project bridge
 * are ever touched; each removal holds the bridge's lock, so none goes while a container is being put on it.
 */

/** The bridges of one project whose ids or name match `network` (a name an older version's container names may match twins). */
async function bridgesMatching(docker: Docker, network: string): Promise<Bridge[]> {
  const inspected = await docker
    .getNetwork(network)
    .inspect()
    .catch(() => null);
  if (inspected) {
    const projectId = (inspected as { Labels?: Record<string, string> }).Labels?.[LABEL.project];
    return projectId ? (await listBridges(docker, projectId)).filter((bridge) => bridge.id === inspected.Id) : [];
  }
  return (await listBridges(docker)).filter((bridge) => bridge.name === network);
}

/** Removes the bridge (an id, or a name) if it is ours and no container, running or not, is on it any more. */
export async function removeIdleNetwork(options: { docker: Docker; network: string }): Promise<void> {
  for (const bridge of await bridgesMatching(options.docker, options.network))
    await withBridgeLock(bridge.projectId, () => removeIfIdle(options.docker, bridge));
}

/**
 * Removes a removed project's bridges (twins too); returns what stayed because a container is still on it
 * (the removal journal tries again at the next start).
 */
export async function removeProjectNetworks(options: { docker: Docker; projectId: string }): Promise<string[]> {
  const { docker, projectId } = options;
  return withBridgeLock(projectId, async () => {
    const kept: string[] = [];
    for (const bridge of await listBridges(docker, projectId))
      if (!(await removeIfIdle(docker, bridge)))
        kept.push(`network ${bridge.name} (${bridge.id.slice(0, 12)}): a container is still on it`);
    return kept;
  });
}

/** Removes every bridge of ours no container uses; returns the names of those removed. */
export async function removeIdleProjectNetworks(options: { docker: Docker }): Promise<string[]> {
  const removed: string[] = [];
  for (const bridge of await listBridges(options.docker))
    if (await withBridgeLock(bridge.projectId, () => removeIfIdle(options.docker, bridge))) removed.push(bridge.name);
  return removed;
}
