import type { Redis } from "ioredis";
import { runAgent, stopRun, type AgentRunDeps } from "../src/server/core/agents/agent-run";
import type { EventPublisher } from "../src/server/core/events/event-stream";
import { redisTrialStopFlags } from "../src/server/core/redis/trial-stop-flags";
import type { WorkerIdentity } from "../src/server/core/runtime/container-spec";
import type { ContainerRuntime } from "../src/server/core/runtime/container-runtime";
import { withInstalledDependencies } from "../src/server/core/dependencies/dependency-runtime";
import { registerJob, type RegisteredJob } from "./job-handler";
import { createAgentRunHandler } from "./jobs/agent";
import { createPrepareEnvironmentHandler, createRemoveImageHandler } from "./jobs/environment";
import { createSendImageHandler } from "./jobs/image";
import { sendImageJob } from "../src/server/core/jobs/image-jobs";
import { createSelfcheckHandler } from "./jobs/selfcheck";
import { createPreflightHandler, createTrialRunHandler, type RemoteModelRuns } from "./jobs/study";
import type { DashboardLink } from "./dashboard-link";
import type { GatewayHost } from "./model-gateway-host";
import { agentInstalls, stagePackageFiles, type PackageFiles } from "../src/server/core/agents/package-files";
import type { WorkspaceKindSetting } from "../src/server/core/workspaces/workspace-kind";
import type { ArtifactSource } from "../src/server/core/artifacts/artifact-source";

/** Every job this worker runs, by name, with what each handler needs from this worker. */
export function createJobHandlers(options: {
  runtime: ContainerRuntime;
  redis: Redis;
  redisUrl: string;
  dataDir: string;
  publish: EventPublisher;
  /** Why this worker gave up on its running trials (it is stopping), or null (worker-publisher.ts). */
  leaving?: () => string | null;
  identity: WorkerIdentity;
  /** Containers this worker is running (the reconciler leaves them alone). */
  active: Set<string>;
  gatewayHost: GatewayHost;
  /** The bridge scripts and the agent CLIs containers mount (default: this package's, staged in the data dir). */
  packageFiles?: PackageFiles;
  /** INVARIANT_HOST_CA (the doctor's certificate check in the self-check). */
  hostCa?: string | undefined;
  /** INVARIANT_WORKSPACE_KIND: which kind of workspace trials and preflights get (auto by default). */
  workspaceKind?: WorkspaceKindSetting | undefined;
  /** Where trials and preflights get their snapshot, test files and image, and deliver results. */
  artifacts?: ArtifactSource | undefined;
  /** A worker on another host: uploads an image its engine holds to the web process (image.send jobs). */
  sendImage?: DashboardLink["sendImage"] | undefined;
  /** The same worker: its registry pushes instead of uploads, when the dashboard names a registry. */
  imagePush?: Pick<DashboardLink, "announcePushed" | "registry"> | undefined;
  /** A worker on another host: its trials' model runs are opened with the dashboard (worker/relayed-gateway.ts). */
  modelRuns?: RemoteModelRuns | undefined;
  log?: (message: string) => void;
}): Map<string, RegisteredJob> {
  const { redis, dataDir, publish, identity: worker, active, gatewayHost } = options;
  const workspaceKind = options.workspaceKind ?? "auto";
  // agent, evaluation and session containers find the image's installed dependencies under /workspace
  const runtime = withInstalledDependencies({
    runtime: options.runtime,
    dataDir,
    owner: { host: options.identity.host, pid: options.identity.pid },
  });
  const packageFiles = options.packageFiles ?? stagePackageFiles({ dataDir });
  const { codex, bridgeDir } = packageFiles;
  const agentDeps: AgentRunDeps = {
    runtime,
    gateway: gatewayHost.gateway,
    gatewaySocketPath: gatewayHost.socket.path,
    bridgeDir,
    publish,
    worker,
    active,
    agents: agentInstalls(packageFiles),
  };
  const handlers = new Map<string, RegisteredJob>();
  for (const job of [
    registerJob(
      createSelfcheckHandler({
        runtime,
        dataDir,
        redisUrl: options.redisUrl,
        ...(options.hostCa ? { hostCa: options.hostCa } : {}),
      }),
    ),
    registerJob(createPrepareEnvironmentHandler({ runtime, codex, publish, worker, active, dataDir })),
    registerJob(createRemoveImageHandler({ runtime })),
    registerJob(createAgentRunHandler(agentDeps, { dataDir })),
    registerJob(createPreflightHandler({ ...options, runtime, dataDir, publish, worker, active, workspaceKind })),
    registerJob(
      createTrialRunHandler({
        runtime,
        dataDir,
        publish,
        worker,
        active,
        artifacts: options.artifacts,
        runAgent: (input, onEvent) => runAgent({ ...agentDeps, onEvent }, input),
        stopAgent: stopRun,
        meteredUsage: (runId) => gatewayHost.gateway.usage(runId),
        stopRequested: (trialId) => redisTrialStopFlags(redis).read(trialId),
        ...(options.leaving ? { leaving: options.leaving } : {}),
        workspaceKind,
        modelRuns: options.modelRuns,
      }),
    ),
  ]) {
    handlers.set(job.name, job);
  }
  // a worker on another host sends the committed images its engine holds to the web process
  const upload = options.sendImage;
  if (upload)
    handlers.set(
      sendImageJob.name,
      registerJob(createSendImageHandler({ ...options, ...options.imagePush, host: worker.host, upload })),
    );
  return handlers;
}
