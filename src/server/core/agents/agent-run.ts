import fs from "node:fs";
import { z } from "zod";
import { jobHostPathSchema } from "../../../shared/job-path-schemas";
import { DEFAULT_RUN_TOKEN_BUDGET, networkModeSchema } from "../../../shared/project-schemas";
import type { EventPublisher } from "../events/event-stream";
import type { ModelGateway } from "../gateway/model-gateway";
import { containerLimitsSchema } from "../runtime/container-limits";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { createCodexEventParser, type CodexEvent, type CodexRunState } from "./codex-events";
import { codexRunOutcome, type RunOutcome } from "./codex-outcome";
import { agentScript, CONTAINER_PATHS, harnessSchema } from "./harness";
import { createEventBatch } from "./agent-event-batch";
import { runPolicy } from "./run-policy";
import { limitReason } from "./run-limits";
import { tokenUsageSchema, type TokenUsage } from "../../../shared/token-usage";
import type { ContainerSpec, WorkerIdentity } from "../runtime/container-spec";
import { workspaceMount } from "../workspaces/workspace-mount";
import { commitIfAsked } from "./agent-commit";
import { wireModelName } from "../../../shared/model-source";

export const agentRunInputSchema = z.object({
  runId: z.string().min(1),
  projectId: z.string().min(1),
  image: z.string().min(1),
  /** Host path of the run's private workspace, mounted at /workspace (a copy-on-write one's upper layer). */
  workspacePath: jobHostPathSchema,
  /** A copy-on-write workspace's other layers: the snapshot's tree below `workspacePath`, overlayfs' work dir. */
  workspaceOverlay: z.object({ lower: jobHostPathSchema, workDir: jobHostPathSchema }).nullable().default(null),
  /** Host path of the run's Codex home (conversations live here, so a later turn can resume). */
  codexHomePath: jobHostPathSchema,
  harness: harnessSchema,
  prompt: z.string().min(1),
  resumeThreadId: z.string().nullable().default(null),
  /** For a resumed thread: Codex reports cumulative usage, so this run's share is the difference. */
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
  /** What Codex itself reported in turn.completed, for cross-checking. */
  reportedUsage: TokenUsage;
  agentSeconds: number;
  exitCode: number;
  /** The run was stopped at its time limit (`outcome` is then `stopped` with that reason). */
  timedOut: boolean;
  /** The run's metered tokens reached its budget (`outcome` is then `stopped` with the figures). */
  budgetReached: boolean;
  /** What the container wrote passed its disk budget: it was stopped and not committed (`outcome` is `stopped`). */
  diskExceeded?: boolean;
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
  codexVersion: string | null;
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
 * One agent run in a container of an environment image: the workspace is mounted, Codex talks to the
 * model gateway through a unix socket with a per-run token (never the real key), events stream out
 * as they happen, and the container is always removed.
 */
export async function runAgent(deps: AgentRunDeps, rawInput: AgentRunInput): Promise<AgentRunResult> {
  const input = agentRunInputSchema.parse(rawInput);
  const clock = deps.clock ?? Date.now;
  fs.mkdirSync(input.codexHomePath, { recursive: true, mode: 0o700 });
  const token = deps.gateway.issueRunToken({
    runId: input.runId,
    budgetTokens: input.budgetTokens,
    policy: runPolicy(input),
  });
  const parser = createCodexEventParser(input.threadUsageBefore ? { threadUsageBefore: input.threadUsageBefore } : {});
  let stoppedBecause: string | null = null;
  const containerId = await deps.runtime.createContainer(agentContainerSpec({ deps, input, token }));
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
      data: { runId: input.runId, containerId, harness: input.harness.kind, harnessVersion: deps.codexVersion },
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
    const outcome = runOutcome({
      input,
      state,
      exitCode,
      stoppedBecause,
      upstreamError: () => deps.gateway.lastUpstreamError(input.runId),
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
      harnessVersion: input.harness.kind === "codex" ? deps.codexVersion : null,
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

/** The agent's container: its script, the run token, and the workspace, Codex home, gateway socket and bridges mounted. */
function agentContainerSpec(options: { deps: AgentRunDeps; input: ParsedAgentRunInput; token: string }): ContainerSpec {
  const { deps, input, token } = options;
  return {
    image: input.image,
    command: [
      "/bin/sh",
      "-c",
      agentScript({
        harness: input.harness,
        prompt: input.prompt,
        resumeThreadId: input.resumeThreadId,
        hostedTools: runPolicy(input).hostedTools,
      }),
    ],
    env: {
      HOME: "/root",
      CODEX_HOME: CONTAINER_PATHS.codexHome,
      GW_TOKEN: token,
      ...(input.harness.kind === "command"
        ? {
            INVARIANT_TASK: input.prompt,
            // the one model the gateway forwards this run's requests for (its configuration's)
            INVARIANT_MODEL: wireModelName(input.harness.model),
            OPENAI_BASE_URL: `http://127.0.0.1:8787/v1`,
            OPENAI_API_KEY: token,
          }
        : {}),
    },
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
      { hostPath: input.codexHomePath, containerPath: CONTAINER_PATHS.codexHome, readOnly: false },
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

/** A Codex run's outcome comes from its events; a command harness's from its exit code. */
function runOutcome(options: {
  input: ParsedAgentRunInput;
  state: CodexRunState;
  exitCode: number;
  stoppedBecause: string | null;
  upstreamError: () => string | null;
}): RunOutcome {
  const { exitCode, stoppedBecause } = options;
  if (options.input.harness.kind === "codex")
    return codexRunOutcome({
      state: options.state,
      exit: { exitCode, stoppedBecause, upstreamError: options.upstreamError() },
    });
  if (stoppedBecause) return { status: "stopped", threadId: null, reason: stoppedBecause };
  if (exitCode === 0) return { status: "succeeded", threadId: null, finalMessage: null };
  return { status: "failed", threadId: null, reason: `The agent command exited with code ${exitCode}.` };
}
