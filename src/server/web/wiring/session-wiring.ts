import os from "node:os";
import type { Db } from "../../core/db/client";
import type { ResultImageFetcher } from "../../core/artifacts/result-image-fetch";
import { agentInstalls, stagePackageFiles } from "../../core/agents/package-files";
import type { AgentInstalls } from "../../core/agents/harnesses/harness-module";
import type { ModelGatewayOptions } from "../../core/gateway/model-gateway";
import type { EnvironmentQueries } from "../environments/environments.queries";
import type { ProjectQueries } from "../projects/projects.queries";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { dataDirMountPolicy, type MountPolicy } from "../../core/runtime/mount-policy";
import type { SnapshotService } from "../snapshots/snapshot-service";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { SessionView } from "../../../shared/session-schemas";
import { startSessionGateway, type SessionGateway } from "../sessions/session-gateway";
import { createSessionService, type SessionService } from "../sessions/session-service";
import { createSessionQueries, createTrialOriginQuery } from "../sessions/sessions.queries";
import { createTerminalHub } from "../sessions/terminal-hub";
import type { WorkspaceKindSetting } from "../../core/workspaces/workspace-kind";

/** A direct session's lease lasts this long without renewal (upkeep renews it every 5 s). */
const LEASE_MS = 30_000;
const DEFAULT_IDLE_STOP_MS = 4 * 3600_000;

/** Builds a container runtime with a mount policy of its own (the composition root binds it to Docker). */
export type SessionRuntimeFactory = (options: {
  hostCaBundle: string | null;
  mountPolicy: MountPolicy;
}) => ContainerRuntime;

export interface SessionsOptions {
  /** The model gateway's upstream and credential (the same as the workers' gateways get). */
  gateway: Omit<ModelGatewayOptions, "tcp">;
  /** Folder of the gateway bridge scripts (default: the package's, staged in the data dir: agents/package-files.ts). */
  bridgeDir: string;
  /** The scripts of the scripted model that `scripted:<script>` sessions talk to (default: the package's mock-scripts/). */
  scriptsDir?: string;
  /** The agent CLIs that Claude Code and Gemini CLI sessions mount (default: the package's, staged in the data dir). */
  agentInstalls?: () => AgentInstalls;
  /** The host's CA bundle for containers with network (see host-ca.ts), or null. */
  hostCaBundle?: string | null;
  /** A running session with no input or output for this long is stopped (resumable); default 4 h. */
  idleStopMs?: number;
  /** Output bytes of a session for its watchers (the socket layer). */
  output: (sessionId: string, data: Uint8Array) => void;
  /** A session changed (the socket layer tells browsers). */
  changed: (session: SessionView) => void;
  /** Which kind of workspace private copies get (INVARIANT_WORKSPACE_KIND; default auto). */
  workspaceKind?: WorkspaceKindSetting;
}

/** Sessions' options with defaults: without a gateway configured, a model request says how to give access. */
function withDefaults(dataDir: string, given: Partial<SessionsOptions> = {}): SessionsOptions {
  return {
    gateway: given.gateway ?? {
      upstreamBaseUrl: "https://api.openai.com/v1",
      credential: () => {
        throw new Error("This dashboard was started without model access for sessions.");
      },
    },
    bridgeDir:
      given.bridgeDir ?? stagePackageFiles({ dataDir, codex: null, claudeCode: null, geminiCli: null }).bridgeDir,
    // staged on the first Claude Code or Gemini CLI session (a copy where the data dir is on another filesystem)
    agentInstalls: given.agentInstalls ?? (() => agentInstalls(stagePackageFiles({ dataDir, codex: null }))),
    hostCaBundle: given.hostCaBundle ?? null,
    ...(given.idleStopMs ? { idleStopMs: given.idleStopMs } : {}),
    ...(given.workspaceKind ? { workspaceKind: given.workspaceKind } : {}),
    ...(given.scriptsDir ? { scriptsDir: given.scriptsDir } : {}),
    output: given.output ?? (() => undefined),
    changed: given.changed ?? (() => undefined),
  };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

/** Builds the session service of the web process (its gateway starts on first use). */
export function wireSessions(
  base: {
    db: Db;
    dataDir: string;
    runtime: ContainerRuntime;
    sessionRuntime: SessionRuntimeFactory;
    sessions?: Partial<SessionsOptions>;
    log?: (message: string) => void;
    /** Continue a result of a trial whose image is on a worker on another host: fetches it from there. */
    resultImages?: Pick<ResultImageFetcher, "fetch">;
  },
  queries: { projectQueries: ProjectQueries; environmentQueries: EnvironmentQueries },
  snapshots: SnapshotService,
): SessionService & { closeGateway(): Promise<void> } {
  const config = withDefaults(base.dataDir, base.sessions);
  const options = {
    ...base,
    log: base.log ?? (() => undefined),
    projects: queries.projectQueries,
    environments: queries.environmentQueries,
    snapshots,
  };
  let gateway: Promise<SessionGateway> | null = null;
  const startGateway = () =>
    (gateway ??= startSessionGateway({
      socketDir: dataDirPaths(options.dataDir).sessionGatewayDir,
      gateway: { ...config.gateway, log: options.log },
      ...(config.scriptsDir ? { scriptsDir: config.scriptsDir } : {}),
    }));
  let service: SessionService | null = null;
  const hub = createTerminalHub({
    runtime: options.runtime,
    broadcast: config.output,
    onExit: (sessionId, exitCode) =>
      void service?.onExit(sessionId, exitCode).catch((error: unknown) => options.log(`sessions: ${String(error)}`)),
    onActivity: (sessionId) => service?.onActivity(sessionId),
    log: options.log,
  });
  service = createSessionService({
    sessions: createSessionQueries(options.db),
    projects: options.projects,
    environments: options.environments,
    snapshots: options.snapshots,
    trialOrigin: async (trialId) => {
      const trial = await createTrialOriginQuery(options.db)(trialId);
      if (!trial) return null;
      const codexHomePath = dataDirPaths(options.dataDir).trialAttempt({ trialId, attempt: trial.attempt }).codexHome;
      return { ...trial, codexHomePath };
    },
    runtime: options.runtime,
    creatingRuntime: (projectDirs) =>
      options.sessionRuntime({
        hostCaBundle: config.hostCaBundle ?? null,
        mountPolicy: dataDirMountPolicy({
          dataDir: options.dataDir,
          projectDirs,
          readOnlyPaths: [config.bridgeDir],
        }),
      }),
    gateway: startGateway,
    hub,
    dataDir: options.dataDir,
    bridgeDir: config.bridgeDir,
    agentInstalls: once(config.agentInstalls ?? (() => ({}))),
    hostUser: os.userInfo().username,
    changed: config.changed,
    clock: () => new Date(),
    leaseMs: LEASE_MS,
    idleStopMs: config.idleStopMs ?? DEFAULT_IDLE_STOP_MS,
    log: options.log,
    ...(config.workspaceKind ? { workspaceKind: config.workspaceKind } : {}),
    ...(base.resultImages ? { resultImages: base.resultImages } : {}),
  });
  return {
    ...service,
    async closeGateway() {
      if (gateway) await (await gateway).close();
    },
  };
}
