import type { EnvironmentQueries } from "../environments/environments.queries";
import type { ProjectQueries } from "../projects/projects.queries";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { SnapshotService } from "../snapshots/snapshot-service";
import type { SessionView } from "../../../shared/session-schemas";
import type { SessionGateway } from "./session-gateway";
import type { SessionQueries, SessionRecord } from "./sessions.queries";
import type { TerminalHub } from "./terminal-hub";
import type { WorkspaceKindSetting } from "../../core/workspaces/workspace-kind";
import type { ResultImageFetcher } from "../../core/artifacts/result-image-fetch";
import type { AgentInstalls } from "../../core/agents/harnesses/harness-module";
import type { HarnessKind } from "../../../shared/vocabulary";

/** A trial's result as "continue a result" needs it (from the study side). */
export interface TrialOrigin {
  trialId: string;
  projectId: string;
  workspaceId: string | null;
  /** The trial's committed agent container (its tools), or null when it was not kept. */
  committedImage: string | null;
  /** The host whose own engine keeps that image (a worker on another host), or null: this host's engine. */
  imageHost?: string | null;
  /** The worker (on that host) that committed it. */
  imageWorker?: string | null;
  /** The conversation its agent had (Codex's thread, Claude Code's or Gemini CLI's session id). */
  threadId: string | null;
  /** The trial's agent home on the host (its conversations: Codex's home, or Claude Code's or Gemini CLI's), or null. */
  codexHomePath: string | null;
  /** The trial's harness kind (absent: Codex, as trials were before other agents). */
  harness?: HarnessKind;
  model: string | null;
  reasoningEffort: string | null;
}

/** What the session modules are given (composition root: app-services.ts). */
export interface SessionDeps {
  sessions: SessionQueries;
  projects: Pick<ProjectQueries, "findById">;
  environments: Pick<EnvironmentQueries, "active" | "findById" | "createBuilding" | "finish" | "allBuilding">;
  snapshots: Pick<SnapshotService, "create">;
  trialOrigin: (trialId: string) => Promise<TrialOrigin | null>;
  /** The engine for everything but creating containers. */
  runtime: ContainerRuntime;
  /** The engine that creates a session's container, allowed to mount these project directories. */
  creatingRuntime: (projectDirs: string[]) => ContainerRuntime;
  gateway: () => Promise<SessionGateway>;
  hub: TerminalHub;
  dataDir: string;
  /** Folder of the gateway bridge scripts (mounted read-only). */
  bridgeDir: string;
  /** Who "started by" names when the user gives no name (the host user). */
  hostUser: string;
  /** Some session changed: lists refetch, terminals show the new state. */
  changed: (session: SessionView) => void;
  clock: () => Date;
  /** A direct session's lease lasts this long unless renewed (a crashed holder loses it after it). */
  leaseMs: number;
  log: (message: string) => void;
  /** Fetches a trial's result image from the worker on another host that holds it (absent: refused). */
  resultImages?: Pick<ResultImageFetcher, "fetch">;
  /** The agent CLIs staged from the package (Claude Code, Gemini CLI) that agent sessions mount; absent: none. */
  agentInstalls?: () => AgentInstalls;
  /** Which kind of workspace private copies get (INVARIANT_WORKSPACE_KIND; default auto: probed once). */
  workspaceKind?: WorkspaceKindSetting;
}

export function toSessionView(record: SessionRecord, watchers: number): SessionView {
  return {
    id: record.id,
    projectId: record.projectId,
    projectName: record.projectName,
    kind: record.kind,
    mode: record.mode,
    model: record.model,
    state: record.state,
    detached: record.state === "running" && watchers === 0,
    // a continue-a-result session gets its workspace copied once its image has arrived from another host
    fetchingImage:
      record.state === "starting" && !record.containerId && !record.workspaceId && record.fromTrialId !== null,
    reason: record.reason,
    notice: record.notice,
    startedBy: record.startedBy,
    threadId: record.threadId,
    fromTrialId: record.fromTrialId,
    workspaceId: record.workspaceId,
    environmentVersionId: record.environmentVersionId,
    savedVersionId: record.savedVersionId,
    network: record.network,
    columns: record.columns,
    rows: record.rows,
    tokens: record.tokens,
    createdAt: record.createdAt,
    lastActivityAt: record.lastActivityAt,
    endedAt: record.endedAt,
  };
}
