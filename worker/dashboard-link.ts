import type { ImageRegistry } from "../src/server/core/runtime/registry-transfer";
import type { ArtifactSource } from "../src/server/core/artifacts/artifact-source";
import {
  createDashboardChannel,
  WorkerRefusedError,
  type DashboardChannel,
  type JobLease,
} from "../src/server/core/artifacts/dashboard-channel";
import { createHttpArtifactSource } from "../src/server/core/artifacts/http-artifact-source";
import type { ContainerRuntime } from "../src/server/core/runtime/container-runtime";
import { prepareEnvironmentJob, removeEnvironmentImageJob } from "../src/server/core/jobs/environment-jobs";
import { agentRunJob } from "../src/server/core/jobs/agent-jobs";
import { sendImageJob, sendsImage } from "../src/server/core/jobs/image-jobs";
import type { WorkerInfo } from "../src/server/core/redis/worker-registry";
import type { WorkerOptions } from "./worker-options";
import { messageOf } from "../src/shared/error-message";

/**
 * Jobs whose effect belongs on the dashboard's host: an environment build (its image and dependency
 * folder must be where sessions and the web process use them), an image removal there, an agent run on
 * paths of that data dir. A worker on another host hands them back to the queue for a worker there.
 */
const HOST_BOUND_JOBS: ReadonlySet<string> = new Set([
  prepareEnvironmentJob.name,
  removeEnvironmentImageJob.name,
  agentRunJob.name,
]);

export const isHostBound = (jobName: string) => HOST_BOUND_JOBS.has(jobName);

/**
 * The jobs a worker leaves to others. A worker on another host: those bound to the dashboard's host, and
 * image sends meant for another host's engine. A worker beside the dashboard: every image send (the image
 * it asks for is on another host's engine; the web process asks only when its own engine lacks it).
 */
export function handsBackFor(worker: { id: string; host: string; remote: boolean }) {
  return (job: { name: string; data: unknown }): boolean => {
    if (job.name === sendImageJob.name) {
      if (!worker.remote) return true;
      const parsed = sendImageJob.schema.safeParse(job.data);
      return parsed.success && !sendsImage(parsed.data, worker);
    }
    return worker.remote && isHostBound(job.name);
  };
}

/** How often a worker on another host checks that its token still holds (and the dashboard answers). */
const CHECK_EVERY_MS = 5_000;
export interface DashboardLink {
  artifacts: ArtifactSource;
  /** The channel itself (the model relay's hop to the dashboard's gateway: worker/relayed-gateway.ts). */
  channel: DashboardChannel;
  /** Streams a `docker save` of an image its engine holds to the web process, under the image.send job's lease. */
  sendImage: (imageId: string, body: AsyncIterable<Buffer>, lease: JobLease) => Promise<unknown>;
  /** Tells the web process an image is in its registry, to pull by `reference` (image.send with a registry). */
  announcePushed: (imageId: string, reference: string, lease: JobLease) => Promise<unknown>;
  /** This worker's registry and credentials (null: none set here). */
  registry: ImageRegistry | null;
  /** Asks the dashboard who this token is (refused at once when it was revoked). */
  hello(): Promise<{ worker: string; version: string }>;
  /** Checks the token every few seconds until closed. */
  watch(): void;
  close(): void;
}

/**
 * A worker on another host (started with --dashboard-url): its one authenticated HTTP channel to the web
 * process, for its jobs' artefacts, results and model requests (never the credential). A refused token (revoked) is reported once
 * through `onRefused`, whatever call met it.
 */
export function linkToDashboard(options: {
  dashboardUrl: string;
  token: string;
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage" | "loadImage" | "pullImage">;
  /** This worker's registry and its credentials (for pulls and its own pushes; null: none set here). */
  registry: ImageRegistry | null;
  worker: { id: string; host: string };
  log: (message: string) => void;
  onRefused: (message: string) => void;
}): DashboardLink {
  const channel = createDashboardChannel(options);
  let timer: NodeJS.Timeout | null = null;
  let unreachable = false;
  const hello = () => channel.json<{ worker: string; version: string }>("/api/worker/hello");
  return {
    artifacts: createHttpArtifactSource({ ...options, channel }),
    channel,
    sendImage: (imageId, body, lease) =>
      channel.upload(`/api/worker/images/${encodeURIComponent(imageId)}`, body, lease),
    announcePushed: (imageId, reference, lease) =>
      channel.json(`/api/worker/images/${encodeURIComponent(imageId)}/pushed`, {
        method: "POST",
        body: { reference },
        lease,
      }),
    registry: options.registry,
    hello,
    watch() {
      timer = setInterval(() => {
        hello().then(
          () => {
            if (unreachable) options.log(`the dashboard at ${options.dashboardUrl} answers again`);
            unreachable = false;
          },
          (error: unknown) => {
            // a refusal went to onRefused; an unreachable dashboard is said once until it answers again
            if (!unreachable && !(error instanceof WorkerRefusedError)) options.log(messageOf(error));
            unreachable = true;
          },
        );
      }, CHECK_EVERY_MS);
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}

/**
 * For a worker on another host: the channel to its dashboard, checked before any job is taken (a wrong
 * URL or a refused token stops the start with the dashboard's sentence). A token refused later (revoked)
 * is logged plainly and stops the worker: it takes no more jobs.
 */
export async function openDashboardLink(options: {
  options: WorkerOptions;
  runtime: ContainerRuntime;
  info: WorkerInfo;
  onRefused: (reason: string) => void;
}): Promise<DashboardLink | null> {
  const config = options.options;
  if (!config.dashboard) return null;
  const link = linkToDashboard({
    dashboardUrl: config.dashboard.url,
    token: config.dashboard.token,
    dataDir: config.dataDir,
    runtime: options.runtime,
    registry: config.dashboard.registry ?? null,
    worker: { id: options.info.id, host: options.info.host },
    log: config.log,
    onRefused: (message) => {
      config.log(`the dashboard refused this worker's token: ${message} This worker takes no more jobs and stops.`);
      options.onRefused("its worker token was refused");
    },
  });
  const hello = await link.hello();
  // the heartbeat says so: the web process asks only such workers for the images their engines hold
  options.info.remoteAs = hello.worker;
  config.log(
    `connected to the dashboard at ${config.dashboard.url} as worker "${hello.worker}" (dashboard ${hello.version})`,
  );
  return link;
}
