import type { Redis } from "ioredis";
import type { Db } from "../../core/db/client";
import { publishEvent, type EventPublisher } from "../../core/events/event-stream";
import type { JobQueue } from "../../core/jobs/job-queue";
import { redisTrialStopFlags } from "../../core/redis/trial-stop-flags";
import { listWorkers } from "../../core/redis/worker-registry";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { createRemovalJournal } from "../cleanup/removal-journal";
import { removeProject } from "../removal/project-removal";
import type { WorkStopper } from "../removal/running-work";
import { createSessionQueries } from "../sessions/sessions.queries";
import type { SnapshotService } from "../snapshots/snapshot-service";
import { createStudyService } from "../studies/study-service";
import { createTrialSweeper } from "../studies/trial-sweeper";
import type { WebQueries } from "./queries";

/** Studies and what removes them: the study service, its trial sweeper, and the crash-safe removal journal. */
export function wireStudies(deps: {
  options: { db: Db; dataDir: string; runtime: ContainerRuntime };
  queries: WebQueries;
  queue: JobQueue;
  redis: Redis;
  snapshots: SnapshotService;
  host: { cpus: number; memoryBytes: number };
  log: (message: string) => void;
}) {
  const { options, queries, queue, redis, snapshots, host, log } = deps;
  const { projectQueries, snapshotQueries, environmentQueries, studyQueries } = queries;
  const liveWorkers = () => listWorkers(redis);
  const journal = createRemovalJournal({ dataDir: options.dataDir, runtime: options.runtime, log });
  const publish: EventPublisher = (event) => publishEvent(redis, event);
  const studyDeps = { studies: studyQueries, runtime: options.runtime, queue, publish, liveWorkers, log };
  const studies = createStudyService({
    ...studyDeps,
    journal,
    stopFlags: redisTrialStopFlags(redis),
    projects: projectQueries,
    environments: environmentQueries,
    snapshots,
    dataDir: options.dataDir,
    host,
  });
  const sweeper = createTrialSweeper({
    ...studyDeps,
    dispatcher: studies.dispatcher,
    clock: () => new Date(),
    dataDir: options.dataDir,
    carryOutStops: () => studies.carryOutStops(),
  });
  // finishes removals a crash or a busy image interrupted; an owner whose rows are still there was not deleted
  const resumeRemovals = () =>
    journal.resume(async (owner) =>
      owner.kind === "study"
        ? (await studyQueries.state(owner.id)) !== null
        : (await projectQueries.findById(owner.id)) !== null,
    );
  const removalDeps = {
    projects: projectQueries,
    studies: studyQueries,
    environments: environmentQueries,
    snapshots: snapshotQueries,
    sessions: createSessionQueries(options.db),
    journal,
    dataDir: options.dataDir,
  };
  // removal ends what runs through the sessions service too, which is wired after this
  const projectRemoval = (stopper: WorkStopper) => (input: { id: string; stopRunning?: boolean; by?: string }) =>
    removeProject({ ...removalDeps, stopper }, input);
  return { studies, sweeper, resumeRemovals, projectRemoval };
}
