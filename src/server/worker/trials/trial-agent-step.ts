import type { AgentRunResult } from "../../core/agents/agent-run";
import type { CodexEvent } from "../../core/agents/codex-events";
import { harnessModule } from "../../core/agents/harness";
import type { TrialContext } from "./trial-context";
import type { TrialWorkspace } from "./trial-evaluation-step";

/** The trial log's line for an agent event, or null for events the log leaves out. */
function describe(event: CodexEvent): string | null {
  switch (event.type) {
    case "command.started":
      return `$ ${event.command}\n`;
    case "command.finished":
      return `${event.outputTail ? `${event.outputTail.replace(/\n?$/, "\n")}` : ""}[exit ${event.exitCode ?? "?"}]\n`;
    case "file.changed":
      return event.status === "completed"
        ? `${event.changes.map((change) => `~ ${change.kind} ${change.path}`).join("\n")}\n`
        : null;
    case "agent.message":
      return `agent: ${event.text}\n`;
    case "turn.failed":
      return `turn failed: ${event.message}\n`;
    case "error":
      return `${event.fatal ? "error" : "warning"}: ${event.message}\n`;
    case "raw":
      return event.reason === "not-json" ? `${event.line}\n` : null;
    default:
      return null;
  }
}

/** Publishes the metered tokens and commands run every second while the agent runs (only when they changed). */
function startUsageTicker(context: TrialContext, commandsRun: () => number): () => void {
  const { deps, job, ids, runId } = context;
  let lastPublished = "";
  const ticker = setInterval(() => {
    const usage = deps.meteredUsage(runId);
    const key = `${JSON.stringify(usage)}|${commandsRun()}`;
    if (key === lastPublished) return;
    lastPublished = key;
    void deps
      .publish({
        type: "trial.progress",
        ...ids,
        data: { attempt: job.attempt, state: "agent", step: "Agent running", usage, commandsRun: commandsRun() },
      })
      .catch(() => undefined);
  }, 1000);
  return () => clearInterval(ticker);
}

/**
 * The agent run in a container of the frozen image, on the trial's workspace; its container is committed
 * afterwards. Every command it starts is counted in `counter.commandsRun`.
 */
export async function runAgentStep(options: {
  context: TrialContext;
  workspace: TrialWorkspace;
  /** Read-only mounts the agent needs besides its workspace (the snapshot's git objects). */
  extraMounts: { hostPath: string; containerPath: string }[];
  counter: { commandsRun: number };
}): Promise<AgentRunResult> {
  const { context, counter } = options;
  const { deps, job, runId, log, note } = context;
  await context.progress("agent", harnessModule(job.harness).progressLabel(job.harness));
  const stopTicker = startUsageTicker(context, () => counter.commandsRun);
  let agent: AgentRunResult;
  try {
    agent = await deps.runAgent(
      {
        runId,
        projectId: job.projectId,
        // a follow-up runs in its parent's result image and resumes its parent's conversation (trial-follow-up.ts)
        image: job.followUp?.agentImage ?? job.image,
        resumeThreadId: job.followUp?.resumeThreadId ?? null,
        threadUsageBefore: job.followUp?.threadUsageBefore ?? null,
        workspacePath: options.workspace.path,
        workspaceOverlay: options.workspace.overlay,
        codexHomePath: context.files.codexHome,
        harness: job.harness,
        prompt: job.prompt,
        network: job.network,
        allowHostedTools: job.allowHostedTools,
        budgetTokens: job.budgetTokens,
        limits: job.limits,
        runAsRoot: job.runAsRoot,
        diskBudgetBytes: job.diskBudgetBytes,
        timeoutMs: job.agentTimeoutMs,
        labels: { study: job.studyId, trial: job.trialId },
        extraMounts: options.extraMounts,
        commit: {
          repository: `invariant-trial/${job.projectId.toLowerCase()}`,
          tag: `${job.trialId.toLowerCase()}-${job.attempt}`,
        },
      },
      (event) => {
        if (event.type === "command.started") counter.commandsRun += 1;
        const line = describe(event);
        if (line) log.write(line);
      },
    );
  } finally {
    stopTicker();
  }
  // its worker is stopping and removed the container: the trial's interruption says so, not "Agent failed"
  if (deps.leaving?.()) return agent;
  note(
    `Agent ${agent.outcome.status}${agent.outcome.status === "succeeded" ? "" : `: ${agent.outcome.reason}`} after ${agent.agentSeconds.toFixed(1)} s`,
  );
  if (agent.commitError) note(agent.commitError);
  return agent;
}
