import fs from "node:fs";
import { z } from "zod";
import { networkModeSchema } from "../../shared/project-schemas";
import type { EventInput } from "../events/event-stream";
import type { ModelGateway } from "../gateway/model-gateway";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import { createCodexEventParser, type CodexEvent } from "./codex-events";
import { codexRunOutcome, type RunOutcome } from "./codex-outcome";
import { agentScript, CONTAINER_PATHS, harnessSchema } from "./harness";
import { tokenUsageSchema, type TokenUsage } from "./token-usage";
import type { WorkerIdentity } from "../runtime/container-spec";

export const agentRunInputSchema = z.object({
  runId: z.string().min(1),
  projectId: z.string().min(1),
  image: z.string().min(1),
  /** Host path of the run's private workspace, mounted at /workspace. */
  workspacePath: z.string().min(1),
  /** Host path of the run's Codex home (conversations live here, so a later turn can resume). */
  codexHomePath: z.string().min(1),
  harness: harnessSchema,
  prompt: z.string().min(1),
  resumeThreadId: z.string().nullable().default(null),
  /** For a resumed thread: Codex reports cumulative usage, so this run's share is the difference. */
  threadUsageBefore: tokenUsageSchema.nullable().default(null),
  network: networkModeSchema,
  limits: z.object({ cpus: z.number(), memoryBytes: z.number(), swapBytes: z.number(), pids: z.number() }),
  timeoutMs: z.number().int().positive(),
  budgetTokens: z.number().int().positive().nullable().default(null),
  labels: z
    .object({ study: z.string().optional(), trial: z.string().optional(), session: z.string().optional() })
    .default({}),
  /** More read-only mounts (e.g. the snapshot's git objects a workspace's .git borrows, at the same path). */
  extraMounts: z.array(z.object({ hostPath: z.string(), containerPath: z.string() })).default([]),
  /** Commit the finished container to this image before removing it, so the result can be continued with its tools. */
  commit: z.object({ repository: z.string(), tag: z.string() }).nullable().default(null),
});
export type AgentRunInput = z.input<typeof agentRunInputSchema>;

export interface AgentRunResult {
  outcome: RunOutcome;
  threadId: string | null;
  /** Tokens the gateway metered for this run (the figure we report). */
  meteredUsage: TokenUsage | null;
  /** What Codex itself reported in turn.completed, for cross-checking. */
  reportedUsage: TokenUsage;
  agentSeconds: number;
  exitCode: number;
  harnessVersion: string | null;
  /** Image id of the committed container (input.commit), or null. */
  committedImageId: string | null;
  /** Why the commit failed, when it did (the run's result stands). */
  commitError: string | null;
}

export interface AgentRunDeps {
  runtime: ContainerRuntime;
  gateway: ModelGateway;
  /** Host path of the gateway's unix socket (see gateway-socket.ts). */
  gatewaySocketPath: string;
  /** Host directory holding the gateway bridges (gateway-bridge.pl, gateway-bridge.cjs). */
  bridgeDir: string;
  publish: (event: EventInput) => Promise<unknown>;
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

/**
 * One agent run in a container of an environment image: the workspace is mounted, Codex talks to the
 * model gateway through a unix socket with a per-run token (never the real key), events stream out
 * as they happen, and the container is always removed.
 */
export async function runAgent(deps: AgentRunDeps, rawInput: AgentRunInput): Promise<AgentRunResult> {
  const input = agentRunInputSchema.parse(rawInput);
  const clock = deps.clock ?? Date.now;
  fs.mkdirSync(input.codexHomePath, { recursive: true, mode: 0o700 });
  const token = deps.gateway.issueRunToken({ runId: input.runId, budgetTokens: input.budgetTokens });
  const parser = createCodexEventParser(input.threadUsageBefore ? { threadUsageBefore: input.threadUsageBefore } : {});
  let stoppedBecause: string | null = null;
  const containerId = await deps.runtime.createContainer({
    image: input.image,
    command: [
      "/bin/sh",
      "-c",
      agentScript({ harness: input.harness, prompt: input.prompt, resumeThreadId: input.resumeThreadId }),
    ],
    env: {
      HOME: "/root",
      CODEX_HOME: CONTAINER_PATHS.codexHome,
      GW_TOKEN: token,
      ...(input.harness.kind === "command"
        ? { INVARIANT_TASK: input.prompt, OPENAI_BASE_URL: `http://127.0.0.1:8787/v1`, OPENAI_API_KEY: token }
        : {}),
    },
    workingDir: CONTAINER_PATHS.workspace,
    labels: { project: input.projectId, role: "agent", worker: deps.worker, ...input.labels },
    limits: input.limits,
    network: input.network,
    mounts: [
      { hostPath: input.workspacePath, containerPath: CONTAINER_PATHS.workspace, readOnly: false },
      { hostPath: input.codexHomePath, containerPath: CONTAINER_PATHS.codexHome, readOnly: false },
      { hostPath: deps.gatewaySocketPath, containerPath: CONTAINER_PATHS.gatewaySocket, readOnly: false },
      { hostPath: deps.bridgeDir, containerPath: CONTAINER_PATHS.bridgeDir, readOnly: true },
      ...input.extraMounts.map((mount) => ({ ...mount, readOnly: true })),
    ],
  });
  deps.active.add(containerId);
  // the event catalog's ids for what the container labels call study, trial and session
  const ids = {
    projectId: input.projectId,
    ...(input.labels.study ? { studyId: input.labels.study } : {}),
    ...(input.labels.trial ? { trialId: input.labels.trial } : {}),
    ...(input.labels.session ? { sessionId: input.labels.session } : {}),
  };
  runningContainers.set(input.runId, {
    containerId,
    stop: (reason) => {
      stoppedBecause ??= reason;
      void deps.runtime.stopContainer(containerId, { timeoutSeconds: 2 });
    },
  });
  let batch: CodexEvent[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const events = batch;
    batch = [];
    await deps.publish({ type: "agent.events", ...ids, data: { runId: input.runId, events } });
  };
  const timer = setInterval(() => void flush().catch(() => undefined), 250);
  const started = clock();
  try {
    await deps.publish({
      type: "agent.started",
      ...ids,
      data: { runId: input.runId, containerId, harness: input.harness.kind, harnessVersion: deps.codexVersion },
    });
    const handle = (events: CodexEvent[]) => {
      for (const event of events) deps.onEvent?.(event);
      batch.push(...events);
    };
    const { exitCode, timedOut } = await deps.runtime.runToExit(containerId, (chunk) => handle(parser.push(chunk)), {
      timeoutMs: input.timeoutMs,
    });
    handle(parser.end());
    if (timedOut) stoppedBecause ??= `Stopped after ${Math.round(input.timeoutMs / 1000)} s: the agent time limit.`;
    const agentSeconds = (clock() - started) / 1000;
    const state = parser.state();
    const outcome =
      input.harness.kind === "codex"
        ? codexRunOutcome({
            state,
            exit: { exitCode, stoppedBecause, upstreamError: deps.gateway.lastUpstreamError(input.runId) },
          })
        : stoppedBecause
          ? ({ status: "stopped", threadId: null, reason: stoppedBecause } as const)
          : exitCode === 0
            ? ({ status: "succeeded", threadId: null, finalMessage: null } as const)
            : ({
                status: "failed",
                threadId: null,
                reason: `The agent command exited with code ${exitCode}.`,
              } as const);
    let committedImageId: string | null = null;
    let commitError: string | null = null;
    if (input.commit) {
      try {
        committedImageId = await deps.runtime.commitContainer(containerId, {
          ...input.commit,
          labels: { "invariant.project": input.projectId, "invariant.run": input.runId },
        });
      } catch (error) {
        commitError = `Could not keep the agent's container as an image: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const result: AgentRunResult = {
      outcome,
      threadId: state.threadId,
      meteredUsage: deps.gateway.usage(input.runId),
      reportedUsage: state.runUsage,
      agentSeconds,
      exitCode,
      harnessVersion: input.harness.kind === "codex" ? deps.codexVersion : null,
      committedImageId,
      commitError,
    };
    clearInterval(timer);
    await flush();
    await deps.publish({
      type: "agent.finished",
      ...ids,
      data: {
        runId: input.runId,
        status: outcome.status,
        reason: outcome.status === "succeeded" ? null : outcome.reason,
        threadId: result.threadId,
        agentSeconds,
        usage: result.meteredUsage,
        harnessVersion: result.harnessVersion,
      },
    });
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
