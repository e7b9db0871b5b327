/** A child the launcher keeps running (its private Redis, its worker): how it is doing. */
export interface SupervisedProcess {
  name: "redis" | "worker";
  /** `failing`: restarts keep failing or do not stay up (health degrades, the dashboard shows a banner). */
  state: "running" | "restarting" | "failing" | "stopped";
  restarts: number;
  /** How it last ended, e.g. "signal 9", "code 1", "could not start: …". */
  lastExit: string | null;
  lastRestartAt: string | null;
  lastError: string | null;
}

/** What /api/health and the System page report. `degraded` whenever `problems` is not empty. */
export interface HealthReport {
  status: "ok" | "degraded";
  /** Plain sentences, each what is wrong and what happens about it. */
  problems: string[];
  redis: { reachable: boolean };
  /**
   * The dashboard's Docker engine: its version, or why it did not answer (null reachable: not probed).
   * Workers on other hosts have engines of their own; their heartbeats say whether they take jobs.
   */
  docker: { reachable: boolean | null; version: string | null; error: string | null };
  /** Workers whose heartbeat is current (unknown while Redis is unreachable), and each one's room. */
  workers: { online: number | null; list: WorkerRoom[] };
  /** Events published but not yet recorded in the database (`lag`: not yet read; `pending`: read, not yet acknowledged). */
  recorder: { lag: number | null; pending: number | null };
  supervision: SupervisedProcess[];
}

/** A worker's room as its heartbeat advertises it (null figures: a worker of an older version). */
export interface WorkerRoom {
  id: string;
  host: string;
  slots: number;
  busySlots: number | null;
  /** False while all its slots are busy or a floor of free disk or memory keeps it from taking jobs. */
  accepting: boolean | null;
  pausedReason: string | null;
  diskFreeBytes: number | null;
  memoryAvailableBytes: number | null;
}
