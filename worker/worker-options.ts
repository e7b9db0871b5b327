import type { ImageRegistry } from "../src/server/core/runtime/registry-transfer";
import type { CapacityFloors } from "./capacity";
import type { ModelGatewayConfig } from "./model-gateway-host";
import type { HeartbeatTiming } from "../src/server/core/redis/worker-registry";
import type { WorkspaceKindSetting } from "../src/server/core/workspaces/workspace-kind";

/** How a worker process is started (main.ts startWorker; the CLI's `invariant-web worker` builds it). */
export interface WorkerOptions {
  redisUrl: string;
  dataDir: string;
  concurrency: number;
  version: string;
  log: (message: string) => void;
  /** The model gateway's credential sources and upstream (see docs/agents.md). */
  modelGateway: ModelGatewayConfig;
  /** How often the reconciler looks for orphaned containers (ms). */
  reconcileEveryMs?: number;
  /** The host CA bundle for containers with network: "auto" (default), "off" or a path (INVARIANT_HOST_CA). */
  hostCa?: string;
  /** The heartbeat's timing (worker-registry.ts DEFAULT_HEARTBEAT); tests shorten it. */
  heartbeat?: Partial<HeartbeatTiming>;
  /** Free disk and memory under which it takes no new job (capacity.ts DEFAULT_FLOORS; INVARIANT_WORKER_MIN_FREE_*). */
  floors?: Partial<CapacityFloors>;
  /** Which kind of workspace trials get: "auto" (default: probed once), "copy" or "overlay" (INVARIANT_WORKSPACE_KIND). */
  workspaceKind?: WorkspaceKindSetting;
  /**
   * A worker on another host, with a data dir and Docker engine of its own: the dashboard it fetches
   * snapshots, test files and images from and delivers results to, and its worker token (docs/scaling.md).
   */
  dashboard?: { url: string; token: string; registry?: ImageRegistry | null };
  /** A warden process removes this worker's containers if it dies without doing so (default true; container-warden.ts). */
  warden?: boolean;
  /** Told when this worker must stop by itself (its worker token was refused); the caller stops it. */
  onSelfStop?: (reason: string) => void;
}
