import fs from "node:fs";
import { z } from "zod";
import { jobHostPathSchema } from "../../../shared/job-path-schemas";
import { DEFAULT_RUN_TOKEN_BUDGET, networkModeSchema } from "../../../shared/project-schemas";
import type { EventPublisher } from "../events/event-stream";
import type { ModelGateway } from "../gateway/model-gateway";
import { containerLimitsSchema } from "../runtime/container-limits";
import type { ContainerRuntime } from "../runtime/container-runtime";
import type { CodexEvent } from "./codex-events";
import type { RunOutcome } from "./codex-outcome";
import {
  agentScript,
  CONTAINER_PATHS,
  harnessModule,
  harnessSchema,
  type AgentInstall,
  type AgentInstalls,
} from "./harness";
import { createEventBatch } from "./agent-event-batch";
import { runPolicy } from "./run-policy";
import { limitReason } from "./run-limits";
import { tokenUsageSchema, type TokenUsage } from "../../../shared/token-usage";
import type { ContainerSpec, WorkerIdentity } from "../runtime/container-spec";
import { workspaceMount } from "../workspaces/workspace-mount";
import { commitIfAsked } from "./agent-commit";

export const agentRunInputSchema = z.object({
  runId: z.string().min(1),
  projectId: z.string().min(1),
  image: z.string().min(1),
  /** Host path of the run's private workspace, mounted at /workspace (a copy-on-write one's upper layer). */
  workspacePath: jobHostPathSchema,
  /** A copy-on-write workspace's other layers: the snapshot's tree below `workspacePath`, overlayfs' work dir. */
  workspaceOverlay: z.object({ lower: jobHostPathSchema, workDir: jobHostPathSchema }).nullable().default(null),
  /**
   * Host path of the run's agent home, whichever the harness (named for Codex, the first one): the CLI's
   * config and conversations live here, so a later run given the same folder can resume the thread.
   */
  codexHomePath: jobHostPathSchema,
  harness: harnessSchema,
  prompt: z.string().min(1),
  resumeThreadId: z.string().nullable().default(null),
  /** For a resumed thread: its usage so far (Codex reports cumulative usage, so this run's share is the difference). */
  threadUsageBefore: tokenUsageSchema.nullable().default(null),
  network: networkModeSchema,
  /** Hosted tools and URL inputs through the gateway in network mode `none` too (the project's setting). */
  allowHostedTools: z.boolean().default(false),
  limits: containerLimitsSchema,
  runAsRoot: z.boolean().default(false), // the project's "Run as root"; off: the container runs as the host user
  diskBudgetBytes: z.number().int().positive().nullable().default(null), // what it may write before it is stopped
  timeoutMs: z.number().int().positive(),
  /** Input + output tokens the gateway allows the run (null: no budget). */
  budgetTokens: z.number().int().positive().nullable().default(DEFAULT_RUN_TOKEN_BUDGET),
  labels: z
    .object({ study: z.string().optional(), trial: z.string().optional(), session: z.string().optional() })
    .default({}),
  /** More read-only mounts (e.g. the snapshot's git objects a workspace's .git borrows, at the same path). */
  extraMounts: z.array(z.object({ hostPath: jobHostPathSchema, containerPath: jobHostPathSchema })).default([]),
  /** Commit the finished container to this image before removing it, so the result can be continued with its tools. */
  commit: z.object({ repository: z.string(), tag: z.string() }).nullable().default(null),
});
export type AgentRunInput = z.input<typeof agentRunInputSchema>;

export interface AgentRunResult {
  outcome: RunOutcome;
  threadId: string | null;
  /** Tokens the gateway metered for this run (the figure we report); the model the provider named in its responses. */
  meteredUsage: TokenUsage | null;
  reportedModel?: string | null;
  /** What the agent CLI itself reported (Codex's turn.completed, Claude Code's and Gemini CLI's result), for cross-checking. */
  reportedUsage: TokenUsage;
  agentSeconds: number;
  exitCode: number;
  /** The run was stopped at its time limit (`outcome` is then `stopped` with that reason). */
  timedOut: boolean;
  /** The run's metered tokens reached its budget (`outcome` is then `stopped` with the figures). */
  budgetReached: boolean;
  /** What the container wrote passed its disk budget: it was stopped and not committed (`outcome` is `stopped`). */
  diskExceeded?: boolean;
  /** The version of the agent CLI that ran (null: the command harness, or a CLI the worker did not know). */
  harnessVersion: string | null;
  committedImageId: string | null; // the committed container's image (input.commit), or null
  commitError: string | null; // why the commit failed, when it did (the run's result stands)
}

export interface AgentRunDeps {
  runtime: ContainerRuntime;
  gateway: ModelGateway;
  /** Host path of the gateway's unix socket (see gateway-socket.ts). */
  gatewaySocketPath: string;
  /** Host directory holding the gateway bridges (gateway-bridge.pl, gateway-bridge.cjs). */
  bridgeDir: string;
  publish: EventPublisher;
  worker: WorkerIdentity;
  active: Set<string>;
  /** The agent CLIs this worker has, by kind: their versions, and the folders staged for Claude Code and Gemini CLI. */
  agents: AgentInstalls;
  onEvent?: (event: CodexEvent) => void;
  clock?: () => number;
}

/** Registry so the gateway's budget callback can stop the right container. */
const runningContainers = new Map<string, { containerId: string; stop: (reason: string) => void }>();

/** Stops a run's container (budget exceeded, or a user's stop); the run ends with `stopped` and this reason. */
export function stopRun(runId: string, reason: string): void {
  runningContainers.get(runId)?.stop(reason);
}

export type ParsedAgentRunInput = z.output<typeof agentRunInputSchema>;

/**
 * One agent run in a container of an environment image: the workspace is mounted, the agent CLI (its
 * harness module says how it runs) talks to the model gateway through a unix socket with a per-run token (never the real key), events stream out
 * as they happen, and the container is always removed.
 */
export async function runAgent(deps: AgentRunDeps, rawInput: AgentRunInput): Promise<AgentRunResult> {
  const input = agentRunInputSchema.parse(rawInput);
  const clock = deps.clock ?? Date.now;
  const { harness, install } = prepareHarness(deps, input);
  const token = deps.gateway.issueRunToken({
    runId: input.runId,
    budgetTokens: input.budgetTokens,
    policy: runPolicy(input),
  });
  const parser = harness.createParser({ threadUsageBefore: input.threadUsageBefore });
  const harnessVersion = install?.version ?? null;
  let stoppedBecause: string | null = null;
  const containerId = await deps.runtime.createContainer(agentContainerSpec({ deps, input, token, install }));
  deps.active.add(containerId);
  const ids = eventIds(input);
  runningContainers.set(input.runId, {
    containerId,
    stop: (reason) => {
      stoppedBecause ??= reason;
      void deps.runtime.stopContainer(containerId, { timeoutSeconds: 2 });
    },
  });
  const batch = createEventBatch({ publish: deps.publish, ids, runId: input.runId });
  const timer = setInterval(() => void batch.flush().catch(() => undefined), 250);
  const started = clock();
  try {
    await deps.publish({
      type: "agent.started",
      ...ids,
      data: { runId: input.runId, containerId, harness: input.harness.kind, harnessVersion },
    });
    const handle = (events: CodexEvent[]) => {
      for (const event of events) deps.onEvent?.(event);
      batch.add(events);
    };
    const ran = await deps.runtime.runToExit(containerId, (chunk) => handle(parser.push(chunk)), {
      timeoutMs: input.timeoutMs,
    });
    const { exitCode, timedOut } = ran;
    handle(parser.end());
    const kept = await commitIfAsked({ deps, input, containerId, overDisk: ran.overDisk !== null });
    const overDisk = ran.overDisk ?? kept.overDisk ?? null;
    const budgetReached = deps.gateway.budgetReached(input.runId);
    stoppedBecause ??= limitReason({ gateway: deps.gateway, input, overDisk, timedOut, budgetReached });
    // the engine's own figure when it has one: this loop's clock runs late when the loop is busy
    const agentSeconds = (ran.ranMs ?? clock() - started) / 1000;
    const state = parser.state();
    const outcome = harness.outcome({
      state,
      exit: { exitCode, stoppedBecause, upstreamError: deps.gateway.lastUpstreamError(input.runId) },
    });
    const result: AgentRunResult = {
      committedImageId: kept.committedImageId,
      commitError: kept.commitError,
      outcome,
      threadId: state.threadId,
      meteredUsage: deps.gateway.usage(input.runId),
      reportedModel: deps.gateway.reportedModel(input.runId),
      reportedUsage: state.runUsage,
      agentSeconds,
      exitCode,
      timedOut,
      budgetReached,
      diskExceeded: overDisk !== null,
      harnessVersion,
    };
    clearInterval(timer);
    await batch.flush();
    await publishFinished({ deps, ids, runId: input.runId, result });
    return result;
  } finally {
    clearInterval(timer);
    runningContainers.delete(input.runId);
    deps.gateway.revoke(input.runId);
    deps.gateway.forget(input.runId); // the result above already holds the metered usage
    await deps.runtime.removeContainer(containerId);
    deps.active.delete(containerId);
  }
}

/** The run's harness module and the worker's install of its CLI (refused when missing), with the agent home ready. */
function prepareHarness(deps: AgentRunDeps, input: ParsedAgentRunInput) {
  const harness = harnessModule(input.harness);
  const install = deps.agents[input.harness.kind] ?? null;
  if (harness.install && !install?.hostDir)
    throw new Error(`${harness.agentName} is not available on this worker. ${harness.install.hint}`);
  fs.mkdirSync(input.codexHomePath, { recursive: true, mode: 0o700 });
  harness.prepareHome?.(input.codexHomePath, input.harness, { hostedTools: runPolicy(input).hostedTools });
  return { harness, install };
}

/**
 * The agent's container: its script, and the environment and mounts its harness module names (the
 * agent home, the staged CLI read-only) besides the workspace, gateway socket and bridges every run gets.
 */
function agentContainerSpec(options: {
  deps: AgentRunDeps;
  input: ParsedAgentRunInput;
  token: string;
  install: AgentInstall | null;
}): ContainerSpec {
  const { deps, input, token } = options;
  const harness = harnessModule(input.harness);
  const run = {
    harness: input.harness,
    prompt: input.prompt,
    resumeThreadId: input.resumeThreadId,
    hostedTools: runPolicy(input).hostedTools,
  };
  return {
    image: input.image,
    command: ["/bin/sh", "-c", agentScript(run)],
    env: harness.env({ ...run, token }),
    workingDir: CONTAINER_PATHS.workspace,
    labels: { project: input.projectId, role: "agent", worker: deps.worker, ...input.labels },
    limits: input.limits,
    network: input.network,
    runAsRoot: input.runAsRoot,
    diskBudgetBytes: input.diskBudgetBytes,
    mounts: [
      workspaceMount({
        path: input.workspacePath,
        overlay: input.workspaceOverlay,
        containerPath: CONTAINER_PATHS.workspace,
      }),
      ...harness.mounts({ homePath: input.codexHomePath, install: options.install ?? null }),
      { hostPath: deps.gatewaySocketPath, containerPath: CONTAINER_PATHS.gatewaySocket, readOnly: false },
      { hostPath: deps.bridgeDir, containerPath: CONTAINER_PATHS.bridgeDir, readOnly: true },
      ...input.extraMounts.map((mount) => ({ ...mount, readOnly: true })),
    ],
  };
}

/** `agent.finished`: how the run ended, its thread, seconds and metered tokens. */
async function publishFinished(options: {
  deps: AgentRunDeps;
  ids: ReturnType<typeof eventIds>;
  runId: string;
  result: AgentRunResult;
}): Promise<void> {
  const { result } = options;
  const { outcome } = result;
  await options.deps.publish({
    type: "agent.finished",
    ...options.ids,
    data: {
      runId: options.runId,
      status: outcome.status,
      reason: outcome.status === "succeeded" ? null : outcome.reason,
      threadId: result.threadId,
      agentSeconds: result.agentSeconds,
      usage: result.meteredUsage,
      harnessVersion: result.harnessVersion,
    },
  });
}

/** The event catalog's ids for what the container labels call study, trial and session. */
function eventIds(input: ParsedAgentRunInput) {
  return {
    projectId: input.projectId,
    ...(input.labels.study ? { studyId: input.labels.study } : {}),
    ...(input.labels.trial ? { trialId: input.labels.trial } : {}),
    ...(input.labels.session ? { sessionId: input.labels.session } : {}),
  };
}
