import type { ImageRegistry } from "../../core/runtime/registry-transfer";
import os from "node:os";
import type { Redis } from "ioredis";
import type { Db } from "../../core/db/client";
import { createAccessService, type AccessService } from "../access/access-service";
import { createBrowserSessionQueries } from "../access/browser-sessions.queries";
import { createViewerLinkQueries } from "../access/viewer-links.queries";
import type { EventQueries } from "../events/events.queries";
import { createJobQueue } from "../../core/jobs/job-queue";
import { createProjectService, type ProjectService } from "../projects/project-service";
import type { removeProject } from "../removal/project-removal";
import { connectRedis } from "../../core/redis/connection";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { createSystemService, type SystemService } from "../system/system-service";
import type { DependencyService } from "../environments/dependency-service";
import type { EnvironmentService } from "../environments/environment-service";
import { createApplyQueries } from "../apply/apply.queries";
import { createApplyService, type ApplyService } from "../apply/apply-service";
import { createBranchQueries } from "../branches/branches.queries";
import { createBranchService, type BranchService, type BranchServiceDeps } from "../branches/branch-service";
import type { CommitIdentity } from "../branches/branch-commit";
import { createSnapshotService, type SnapshotService } from "../snapshots/snapshot-service";
import { createWorkspaceService, type WorkspaceService } from "../workspaces/workspace-service";
import { createReviewQueries } from "../review/review.queries";
import { createReviewService, type ReviewService } from "../review/review-service";
import { createReviewCommentQueries } from "../review/review-comments.queries";
import type { StudyService } from "../studies/study-service";
import { listWorkers } from "../../core/redis/worker-registry";
import type { SupervisionSource } from "../system/health";
import { redisQueueProbe } from "../../core/events/queue-probe";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { wireSessions, type SessionRuntimeFactory, type SessionsOptions } from "./session-wiring";
import { createResultImageFetcher } from "../../core/artifacts/result-image-fetch";
import type { SessionService } from "../sessions/session-service";
import type { SetupService } from "../setup/setup-service";
import type { DemoService } from "../demo/demo-service";
import { wireFirstRun } from "./first-run-wiring";
import { wireWorkers, type WorkerServices } from "./worker-wiring";
import { createPageTargetQueries, type PageTargetQueries } from "../pages/page-targets";

export interface AppServices {
  version: string;
  publicUrl: string;
  projects: ProjectService & {
    remove: (input: { id: string; stopRunning?: boolean; by?: string }) => ReturnType<typeof removeProject>;
  };
  access: AccessService;
  system: SystemService;
  events: EventQueries;
  environments: EnvironmentService;
  /** A project's dependency step: status (stale manifests), editing it, installing. */
  dependencies: DependencyService;
  snapshots: SnapshotService;
  workspaces: WorkspaceService;
  apply: ApplyService;
  /** Apply as a branch: a trial's changes as a commit on a new branch of the project's repository. */
  branches: BranchService;
  studies: StudyService;
  /** Trial review: changed files, file sides, transcript, compare, patch and file downloads. */
  review: ReviewService;
  /** Terminal sessions: the Codex TUI or a shell in a project's environment, watched from browsers. */
  sessions: SessionService;
  /** The setup checklist and model access (the stored API key). */
  setup: SetupService;
  /** The one-click demo study (the calendar task; the scripted model without model access). */
  demo: DemoService;
  /** Worker tokens and the worker API for workers on other hosts. */
  workers: WorkerServices;
  /** Whether the record a page's path names exists (an unknown id answers 404). */
  pages: PageTargetQueries;
  /** Applies a recorded worker event to the domain (the recorder calls this before acknowledging it). */
  recordEvent(event: InvariantEvent, options: { firstTime: boolean }): Promise<void>;
  /** Finishes study and project removals that a crash or a busy image interrupted (also run by start). */
  resumeRemovals(): Promise<void>;
  /** Background upkeep: the sweeper that finds trials whose worker died, stalled builds, interrupted removals. */
  start(options?: { sweepEveryMs?: number }): void;
  close(): Promise<void>;
}

export interface AppServicesOptions {
  db: Db;
  redisUrl: string;
  dataDir: string;
  adminToken: string;
  publicUrl: string;
  version: string;
  runtime: ContainerRuntime;
  /** Builds the runtime a direct session's container is created with: its own mount policy (that project's folders). */
  sessionRuntime: SessionRuntimeFactory;
  /** A viewer link or a browser session was revoked (its id): drop its open connections. */
  onViewerRevoked?: (id: string) => void;
  /** How long a browser stays signed in; 30 days by default. */
  sessionMaxAgeMs?: number;
  workerUploadLimits?: Parameters<typeof wireWorkers>[0]["workerUploadLimits"]; // what a remote worker may upload
  /** The OCI registry images move through between hosts (absent: docker save over HTTP). */
  registry?: ImageRegistry;
  defaultBaseImage?: string;
  /** Terminal sessions' gateway, bridge scripts and socket callbacks (defaults: no model access, nobody watching). */
  sessions?: Partial<SessionsOptions>;
  /** Where model access comes from besides the stored key (for the Setup page; default: none, ~/.codex). */
  modelAccess?: ModelAccessSettings;
  log?: (message: string) => void;
  /** Author and committer of Apply as a branch's commits (default: invariant-web <invariant-web@localhost>). */
  branchIdentity?: CommitIdentity;
  /** The launcher's supervised children, for health. */
  supervision?: SupervisionSource;
}

/** Wires the domain services of the web process. Transport layers receive this object and nothing else. */
import { createQueries } from "./queries";
import { createUpkeep } from "./upkeep";
import { wireStudies } from "./study-wiring";
import { wireEnvironments } from "./environment-wiring";
import type { ModelAccessSettings } from "../../core/credentials/model-access";

/** Apply as a branch, on the project and study services. */
function wireBranches(options: AppServicesOptions, deps: Pick<BranchServiceDeps, "projects" | "studies">) {
  const identity = options.branchIdentity ? { identity: options.branchIdentity } : {};
  return createBranchService({
    dataDir: options.dataDir,
    branches: createBranchQueries(options.db),
    ...deps,
    ...identity,
  });
}

export function createAppServices(options: AppServicesOptions): AppServices {
  const redis: Redis = connectRedis({ url: options.redisUrl, name: "invariant-web", failFast: true });
  const queue = createJobQueue({ redisUrl: options.redisUrl });
  const queries = createQueries(options.db);
  const { events, projectQueries, snapshotQueries } = queries;
  const log = options.log ?? (() => undefined);
  const snapshots = createSnapshotService({ ...options, projects: projectQueries, snapshots: snapshotQueries });
  const host = { cpus: os.availableParallelism(), memoryBytes: os.totalmem() };
  const { studies, sweeper, resumeRemovals, projectRemoval } = wireStudies({
    options,
    queries,
    queue,
    redis,
    snapshots,
    host,
    log,
  });
  const { environments, dependencies } = wireEnvironments({ options, queries, queue, snapshots });
  // continue a result whose image is on a worker on another host: asked for by a job, uploaded to the worker API
  const resultImages = createResultImageFetcher({ ...options, queue, liveWorkers: () => listWorkers(redis), log });
  const sessions = wireSessions({ ...options, resultImages }, queries, snapshots);
  const workers = wireWorkers({ ...options, gateway: options.sessions?.gateway, images: resultImages, log });
  const upkeep = createUpkeep({
    sweeper,
    sweepBuilds: () => environments.sweepStalled(),
    resumeRemovals,
    sessions,
    log,
  });
  return {
    version: options.version,
    publicUrl: options.publicUrl,
    events,
    projects: {
      ...createProjectService({ projects: projectQueries, dataDir: options.dataDir, host }),
      remove: projectRemoval({ finishSession: (id) => sessions.finish(id), stopStudy: studies.stop }),
    },
    access: createAccessService({
      adminToken: options.adminToken,
      viewerLinks: createViewerLinkQueries(options.db),
      sessions: createBrowserSessionQueries(options.db),
      ...(options.sessionMaxAgeMs ? { sessionMaxAgeMs: options.sessionMaxAgeMs } : {}),
      ...(options.onViewerRevoked ? { onRevoke: options.onViewerRevoked } : {}),
    }),
    environments,
    dependencies,
    snapshots,
    studies,
    sessions,
    review: wireReview(options.db, options.dataDir),
    workers,
    pages: createPageTargetQueries(options.db),
    ...wireFirstRun({ ...options, projects: projectQueries, environments, studies, host, log }),
    async recordEvent(event, recordOptions) {
      await environments.recordEvent(event, recordOptions);
      await studies.recordEvent(event, recordOptions);
      // its trials are interrupted within the sweep, not at the next interval
      if (event.type === "worker.offline" && recordOptions.firstTime) sweeper.sweepSoon();
    },
    resumeRemovals,
    start: (startOptions = {}) => upkeep.start(startOptions.sweepEveryMs ?? 5_000),
    workspaces: createWorkspaceService({ dataDir: options.dataDir, snapshots: snapshotQueries }),
    apply: createApplyService({ ...options, projects: projectQueries, records: createApplyQueries(options.db) }),
    branches: wireBranches(options, { projects: projectQueries, studies }),
    system: createSystemService({
      runtime: options.runtime,
      queueProbe: redisQueueProbe(redis),
      redisUrl: options.redisUrl,
      dataDir: options.dataDir,
      events,
      queue,
      registry: options.registry ?? null,
      ...(options.supervision ? { supervision: options.supervision } : {}),
    }),
    async close() {
      await Promise.all([upkeep.stop(), workers.close()]);
      await queue.close();
      redis.disconnect();
    },
  };
}

/** The trial review, with its comments. */
function wireReview(db: Db, dataDir: string): ReviewService {
  return createReviewService({ dataDir, reviews: createReviewQueries(db), comments: createReviewCommentQueries(db) });
}
