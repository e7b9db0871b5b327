import fs from "node:fs/promises";
import os from "node:os";
import type { WorkerCapacity } from "../src/server/core/redis/worker-registry";

/** Under either floor a worker takes no new job (it finishes what it runs); see docs/architecture.md, "Placement". */
export interface CapacityFloors {
  diskFreeBytes: number;
  memoryAvailableBytes: number;
}

export const DEFAULT_FLOORS: CapacityFloors = { diskFreeBytes: 1024 ** 3, memoryAvailableBytes: 256 * 1024 ** 2 };

/** The host's figures a worker advertises. */
export interface HostFigures {
  cpus: number;
  memoryTotalBytes: number;
  memoryAvailableBytes: number;
  diskFreeBytes: number;
}

/** MemAvailable of /proc/meminfo (what can be allocated without swapping, reclaimable cache included); os.freemem() elsewhere. */
async function memoryAvailable(): Promise<number> {
  try {
    const match = /^MemAvailable:\s+(\d+) kB$/m.exec(await fs.readFile("/proc/meminfo", "utf8"));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return os.freemem();
}

/** CPUs, memory and the data dir's free disk (bytes an unprivileged user may still write) of this host now. */
export async function measureHost(dataDir: string): Promise<HostFigures> {
  const stats = await fs.statfs(dataDir);
  return {
    cpus: os.availableParallelism(),
    memoryTotalBytes: os.totalmem(),
    memoryAvailableBytes: await memoryAvailable(),
    diskFreeBytes: stats.bavail * stats.bsize,
  };
}

const mib = (bytes: number) => `${Math.floor(bytes / 1024 ** 2)} MiB`;

/** Why a worker with these figures must take no job now, or null when it may. */
export function floorReason(figures: HostFigures, floors: CapacityFloors): string | null {
  if (figures.diskFreeBytes < floors.diskFreeBytes)
    return `free disk of its data dir ${mib(figures.diskFreeBytes)} is under the floor of ${mib(floors.diskFreeBytes)}`;
  if (figures.memoryAvailableBytes < floors.memoryAvailableBytes)
    return `available memory ${mib(figures.memoryAvailableBytes)} is under the floor of ${mib(floors.memoryAvailableBytes)}`;
  return null;
}

/**
 * A worker's slots and room, as its heartbeat advertises them: which jobs run (and which of them are
 * trials), the host's last measured figures, and whether a floor keeps it from taking jobs (`blocked`).
 */
export function createCapacityTracker(options: {
  dataDir: string;
  slots: number;
  floors: CapacityFloors;
  measure?: (dataDir: string) => Promise<HostFigures>;
}) {
  const measure = options.measure ?? measureHost;
  const running = new Map<string, string | null>();
  let figures: HostFigures = {
    cpus: os.availableParallelism(),
    memoryTotalBytes: os.totalmem(),
    memoryAvailableBytes: 0,
    diskFreeBytes: 0,
  };
  let blocked: string | null = null;
  let measuredAt = new Date();

  const snapshot = (): WorkerCapacity => {
    const busySlots = running.size;
    const full = busySlots >= options.slots ? `all ${options.slots} of its slots are busy` : null;
    return {
      ...figures,
      slots: options.slots,
      busySlots,
      runningTrials: [...running.values()].filter((trialId): trialId is string => trialId !== null),
      accepting: blocked === null && full === null,
      pausedReason: blocked ?? full,
      floors: { ...options.floors },
      measuredAt: measuredAt.toISOString(),
    };
  };

  return {
    /** A job took a slot (`trialId` when it is a trial's). */
    started(jobId: string, trialId: string | null): void {
      running.set(jobId, trialId);
    },
    ended(jobId: string): void {
      running.delete(jobId);
    },
    /** Measures the host again; resolves to the floor that now keeps the worker from taking jobs, or null. */
    async refresh(): Promise<string | null> {
      figures = await measure(options.dataDir);
      measuredAt = new Date();
      blocked = floorReason(figures, options.floors);
      return blocked;
    },
    /** The floor that kept the worker from taking jobs at the last measurement, or null. */
    blocked: () => blocked,
    snapshot,
  };
}

export type CapacityTracker = ReturnType<typeof createCapacityTracker>;
