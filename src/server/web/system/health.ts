import type { HealthReport, SupervisedProcess, WorkerRoom } from "../../../shared/system-health";
import type { WorkerInfo } from "../../core/redis/worker-registry";
import type { QueueProbe } from "../../core/events/queue-probe";
import { probeTwice, SECOND_DEADLINE_MS, within } from "./health-probes";

/** The launcher's view of the children it keeps running (empty for a web process without one). */
export type SupervisionSource = () => SupervisedProcess[];

const LABELS: Record<SupervisedProcess["name"], string> = { redis: "The private Redis", worker: "The worker" };

/** A sentence per supervised child that is not simply running. */
function supervisionProblems(processes: SupervisedProcess[]): string[] {
  return processes.flatMap((child) => {
    const label = LABELS[child.name];
    const last = child.lastExit ? ` (${child.lastExit})` : "";
    if (child.state === "failing")
      return [
        `${label} keeps exiting${last}: ${child.restarts} restarts have not held. invariant-web keeps restarting it every 30 s; its log says why.`,
      ];
    if (child.state === "restarting") return [`${label} exited${last} and is being restarted.`];
    return [];
  });
}

/** What the web process can see right now: Redis, the workers' heartbeats, the recorder's backlog. */
async function probe(queue: QueueProbe) {
  try {
    // a connection known to be down is an outage now (a ping would wait in ioredis' offline queue, and the
    // requests that need Redis would wait longer the older the outage); a ready one is asked twice
    if (!queue.connected()) throw new Error("the connection to Redis is down");
    const ping = await probeTwice(() => queue.ping());
    if (!ping.ok) throw new Error(ping.reason);
    const [workers, recorder] = await within(
      Promise.all([queue.workers(), queue.recorderBacklog()]),
      SECOND_DEADLINE_MS,
    );
    const remoteOnly = workers.length > 0 && workers.every((worker) => worker.remoteAs !== null);
    return { reachable: true, online: workers.length, remoteOnly, rooms: workers.map(roomOf), recorder };
  } catch {
    return { reachable: false, online: null, remoteOnly: false, rooms: [], recorder: { lag: null, pending: null } };
  }
}

/** What health says of a worker: its slots and room, not what it runs (the probe needs no credentials). */
function roomOf(worker: WorkerInfo): WorkerRoom {
  const { capacity } = worker;
  return {
    id: worker.id,
    host: worker.host,
    slots: capacity?.slots ?? worker.concurrency,
    busySlots: capacity?.busySlots ?? null,
    accepting: capacity?.accepting ?? null,
    pausedReason: capacity?.pausedReason ?? null,
    diskFreeBytes: capacity?.diskFreeBytes ?? null,
    memoryAvailableBytes: capacity?.memoryAvailableBytes ?? null,
  };
}

/** A sentence when every worker online is held back by a floor of free disk or memory (a full worker is busy, not stuck). */
function floorProblem(rooms: WorkerRoom[]): string[] {
  const held = rooms.filter(
    (room) => room.accepting === false && room.busySlots !== null && room.busySlots < room.slots,
  );
  if (rooms.length === 0 || held.length < rooms.length) return [];
  const reasons = held.map((room) => `${room.host}: ${room.pausedReason ?? "paused"}`).join("; ");
  return [
    `No worker takes new jobs (${reasons}): queued trials wait. Free disk space or memory on the worker's host, or lower INVARIANT_WORKER_MIN_FREE_DISK_MIB / INVARIANT_WORKER_MIN_FREE_MEMORY_MIB.`,
  ];
}

/** Asks the dashboard's Docker engine for its version (ContainerRuntime.version). */
export type DockerProbe = () => Promise<{ version: string }>;

/** The engine as the dashboard sees it; null figures when there is no probe (a test's bare checkHealth). */
async function probeDocker(docker: DockerProbe | undefined): Promise<HealthReport["docker"]> {
  if (!docker) return { reachable: null, version: null, error: null };
  const answer = await probeTwice(docker);
  return answer.ok
    ? { reachable: true, version: answer.value.version, error: null }
    : { reachable: false, version: null, error: answer.reason };
}

function dockerProblem(docker: HealthReport["docker"]): string[] {
  if (docker.reachable !== false) return [];
  const why = (docker.error ?? "").replace(/^Docker is not reachable \((.*?)\)\..*$/s, "$1");
  return [
    `Docker is not reachable from the dashboard (${why}): environment builds, sessions and trials cannot start, and a build asked for fails at once. Start the Docker engine (sudo systemctl start docker, or Docker Desktop), or point DOCKER_HOST at it, then restart invariant-web if DOCKER_HOST changed.`,
  ];
}

/**
 * The health report: `degraded` with the problems when Redis or Docker is down, no worker is online, or a
 * child keeps failing. Each dependency is asked twice before it counts as down (health-probes.ts).
 */
export async function checkHealth(options: {
  queue: QueueProbe;
  supervision: SupervisedProcess[];
  docker?: DockerProbe;
}): Promise<HealthReport> {
  const [seen, docker] = await Promise.all([probe(options.queue), probeDocker(options.docker)]);
  const problems: string[] = [];
  if (!seen.reachable)
    problems.push(
      "Redis is not reachable: queued work waits, and starting or retrying work is refused until it is back (a Stop is recorded and carried out then). Pages that read the database keep working.",
    );
  else if (seen.online === 0)
    problems.push(
      "No worker is online: queued trials and builds wait until one starts (restart invariant-web, or run `invariant-web worker`).",
    );
  else if (seen.remoteOnly)
    problems.push(
      "Every worker online is on another host: environment builds, image removals and agent runs wait for a worker that shares this dashboard's data dir (workers on other hosts hand them back). Start invariant-web without --no-worker, or run `invariant-web worker --data-dir … --redis-url …` on this host.",
    );
  problems.push(...dockerProblem(docker));
  problems.push(...floorProblem(seen.rooms));
  problems.push(...supervisionProblems(options.supervision));
  return {
    status: problems.length > 0 ? "degraded" : "ok",
    problems,
    redis: { reachable: seen.reachable },
    docker,
    workers: { online: seen.online, list: seen.rooms },
    recorder: seen.recorder,
    supervision: options.supervision,
  };
}
