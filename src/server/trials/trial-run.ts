import { execFile } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { AgentRunInput, AgentRunResult } from "../agents/agent-run";
import type { CodexEvent } from "../agents/codex-events";
import type { TokenUsage } from "../agents/token-usage";
import { diffWorkspace } from "../diffs/workspace-diff";
import type { EventInput } from "../events/event-stream";
import type { TrialRunJob } from "../jobs/study-jobs";
import type { WorkerIdentity } from "../runtime/container-spec";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import { readManifest, snapshotDir } from "../snapshots/manifest";
import { createWorkspace } from "../workspaces/workspace-store";
import type { Verdict } from "../verdicts/verdict";
import { runEvaluation, type EvaluationResult } from "./evaluation";
import { restoreTestFiles } from "./test-files";
import { openTrialLog, trialDir, trialLogPath, type TrialLog } from "./trial-log";

const copyTree = promisify(execFile);

export interface TrialRunDeps {
  runtime: ContainerRuntime;
  dataDir: string;
  publish: (event: EventInput) => Promise<unknown>;
  worker: WorkerIdentity;
  /** Containers this worker is running (the reconciler leaves them alone). */
  active: Set<string>;
  runAgent: (input: AgentRunInput, onEvent: (event: CodexEvent) => void) => Promise<AgentRunResult>;
  /** Stops a running agent run (agent-run.ts stopRun). */
  stopAgent: (runId: string, reason: string) => void;
  /** Tokens the gateway has metered for a run so far. */
  meteredUsage: (runId: string) => TokenUsage | null;
  /** A stop requested for this trial (a sentence saying by whom), or null. */
  stopRequested: (trialId: string) => Promise<string | null>;
  pollMs?: number;
  clock?: () => number;
}

export type TrialEndState = "succeeded" | "failed" | "error" | "stopped";

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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One trial of a study, start to verdict:
 *   preparing  — a private workspace from the frozen snapshot;
 *   agent      — the agent run in a container of the frozen image (its container is committed afterwards);
 *   evaluating — the diff, then the test command in a fresh container on a copy of the workspace with the
 *                captured test files restored byte for byte, and the verdict.
 * Every step is published as it happens; the result is a `trial.finished` event the web process records.
 * The agent's workspace is kept (diff, apply, continuation); the evaluation's copy is removed.
 */
export async function runTrial(deps: TrialRunDeps, job: TrialRunJob): Promise<{ state: TrialEndState }> {
  const clock = deps.clock ?? Date.now;
  const ids = { projectId: job.projectId, studyId: job.studyId, trialId: job.trialId, workerId: deps.worker.id };
  const runId = `${job.trialId}-${job.attempt}`;
  const dir = trialDir({ dataDir: deps.dataDir, trialId: job.trialId, attempt: job.attempt });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const log: TrialLog = openTrialLog({
    file: trialLogPath({ dataDir: deps.dataDir, trialId: job.trialId, attempt: job.attempt }),
    publish: (text) => deps.publish({ type: "trial.log", ...ids, data: { attempt: job.attempt, text } }),
  });
  const note = (text: string) => log.write(`[${new Date(clock()).toISOString().slice(11, 19)}] ${text}\n`);
  const progress = (
    state: "preparing" | "agent" | "evaluating",
    step: string,
    extra: { usage?: TokenUsage | null; commandsRun?: number } = {},
  ) => {
    note(step);
    return deps.publish({
      type: "trial.progress",
      ...ids,
      data: { attempt: job.attempt, state, step, usage: extra.usage ?? null, commandsRun: extra.commandsRun ?? null },
    });
  };

  let stoppedBy: string | null = null;
  let commandsRun = 0;
  let agent: AgentRunResult | null = null;
  let workspaceId: string | null = null;
  let diff: { files: number; insertions: number; deletions: number } | null = null;
  let evaluation: EvaluationResult | null = null;
  let evaluationFile: string | null = null;
  let error: string | null = null;
  let currentContainer: string | null = null;
  const poll = setInterval(() => {
    void deps
      .stopRequested(job.trialId)
      .then((reason) => {
        if (!reason || stoppedBy) return;
        stoppedBy = reason;
        deps.stopAgent(runId, reason);
        if (currentContainer)
          void deps.runtime.stopContainer(currentContainer, { timeoutSeconds: 1 }).catch(() => undefined);
      })
      .catch(() => undefined);
  }, deps.pollMs ?? 1000);

  try {
    stoppedBy = await deps.stopRequested(job.trialId);
    if (!stoppedBy) {
      await deps.publish({ type: "trial.started", ...ids, data: { attempt: job.attempt, workspaceId: null } });
      await progress("preparing", "Copying the frozen snapshot into a private workspace");
      const workspace = await createWorkspace({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
      workspaceId = workspace.id;
      const gitObjects = path.join(snapshotDir(deps.dataDir, job.snapshotId), "git", "objects");
      const extraMounts = [{ hostPath: gitObjects, containerPath: gitObjects }];

      if (!stoppedBy) {
        await progress(
          "agent",
          job.harness.kind === "codex"
            ? `Running Codex (${job.harness.model}, effort ${job.harness.reasoningEffort})`
            : "Running the agent command",
        );
        let lastPublished = "";
        const ticker = setInterval(() => {
          const usage = deps.meteredUsage(runId);
          const key = `${JSON.stringify(usage)}|${commandsRun}`;
          if (key === lastPublished) return;
          lastPublished = key;
          void deps
            .publish({
              type: "trial.progress",
              ...ids,
              data: { attempt: job.attempt, state: "agent", step: "Agent running", usage, commandsRun },
            })
            .catch(() => undefined);
        }, 1000);
        try {
          agent = await deps.runAgent(
            {
              runId,
              projectId: job.projectId,
              image: job.image,
              workspacePath: workspace.path,
              codexHomePath: path.join(dir, "codex-home"),
              harness: job.harness,
              prompt: job.prompt,
              network: job.network,
              limits: job.limits,
              timeoutMs: job.agentTimeoutMs,
              labels: { study: job.studyId, trial: job.trialId },
              extraMounts,
              commit: {
                repository: `invariant-trial/${job.projectId.toLowerCase()}`,
                tag: `${job.trialId.toLowerCase()}-${job.attempt}`,
              },
            },
            (event) => {
              if (event.type === "command.started") commandsRun += 1;
              const line = describe(event);
              if (line) log.write(line);
            },
          );
        } finally {
          clearInterval(ticker);
        }
        note(
          `Agent ${agent.outcome.status}${agent.outcome.status === "succeeded" ? "" : `: ${agent.outcome.reason}`} after ${agent.agentSeconds.toFixed(1)} s`,
        );
        if (agent.commitError) note(agent.commitError);
      }

      if (!stoppedBy) {
        await progress("evaluating", "Recording the diff against the snapshot");
        const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: job.snapshotId });
        const changes = await diffWorkspace({ dataDir: deps.dataDir, manifest, workspaceRoot: workspace.path });
        diff = {
          files: changes.totals.files,
          insertions: changes.totals.insertions,
          deletions: changes.totals.deletions,
        };
        note(`${diff.files} files changed, ${diff.insertions} insertions(+), ${diff.deletions} deletions(-)`);

        await progress(
          "evaluating",
          `Restoring ${job.testFiles.length} captured test file${job.testFiles.length === 1 ? "" : "s"} and running: ${job.testCommand}`,
        );
        const tree = path.join(dir, "evaluation");
        await fsp.rm(tree, { recursive: true, force: true });
        await copyTree("cp", ["-a", "--reflink=auto", `${workspace.path}/.`, `${tree}/`]).catch(async () => {
          await fsp.mkdir(tree, { recursive: true });
          await copyTree("cp", ["-a", `${workspace.path}/.`, `${tree}/`]);
        });
        try {
          await restoreTestFiles({ dataDir: deps.dataDir, studyId: job.studyId, tree, files: job.testFiles });
          evaluation = await runEvaluation({
            runtime: deps.runtime,
            image: job.image,
            tree,
            extraMounts: extraMounts.map((mount) => ({ ...mount, readOnly: true })),
            testCommand: job.testCommand,
            junitPath: job.junitPath,
            network: job.network,
            limits: job.limits,
            timeoutMs: job.evalTimeoutMs,
            labels: {
              project: job.projectId,
              role: "evaluation",
              worker: deps.worker,
              study: job.studyId,
              trial: job.trialId,
            },
            onOutput: (text) => log.write(text),
            onContainer: (id) => {
              currentContainer = id;
              if (id) deps.active.add(id);
            },
          });
        } finally {
          if (currentContainer) deps.active.delete(currentContainer);
          currentContainer = null;
          await fsp.rm(tree, { recursive: true, force: true });
        }
        evaluationFile = path.join(dir, "evaluation.json");
        await fsp.writeFile(
          evaluationFile,
          JSON.stringify({ verdict: evaluation.verdict, exitCode: evaluation.exitCode, timedOut: evaluation.timedOut }),
        );
        note(
          `Verdict: ${verdictText(evaluation.verdict)} (${evaluation.verdict.source}), test command exit ${evaluation.exitCode ?? "—"} after ${(evaluation.durationMs / 1000).toFixed(1)} s`,
        );
        if (evaluation.timedOut)
          error = `The test command ran past the evaluation time limit (${Math.round(job.evalTimeoutMs / 1000)} s) and was stopped.`;
      }
    }
  } catch (caught) {
    error = `The trial could not finish: ${message(caught)}`;
    note(error);
  } finally {
    clearInterval(poll);
  }

  const state: TrialEndState = stoppedBy
    ? "stopped"
    : error
      ? "error"
      : agent && agent.outcome.status !== "succeeded"
        ? "failed"
        : "succeeded";
  const reason = stoppedBy ?? error ?? (agent && agent.outcome.status !== "succeeded" ? agent.outcome.reason : null);
  note(`Trial ${state}${reason ? `: ${reason}` : ""}`);
  await log.close();
  const verdict: Verdict | null = stoppedBy ? null : (evaluation?.verdict ?? null);
  await deps.publish({
    type: "trial.finished",
    ...ids,
    data: {
      attempt: job.attempt,
      state,
      error: reason,
      verdict: verdict
        ? {
            passed: verdict.passed,
            failed: verdict.failed,
            skipped: verdict.skipped,
            total: verdict.total,
            source: verdict.source,
            ok: verdict.ok,
          }
        : null,
      evaluationFile: verdict ? evaluationFile : null,
      exitCode: evaluation?.exitCode ?? null,
      agentSeconds: agent?.agentSeconds ?? null,
      evalSeconds: evaluation ? evaluation.durationMs / 1000 : null,
      usage: agent ? (agent.meteredUsage ?? agent.reportedUsage) : deps.meteredUsage(runId),
      commandsRun,
      threadId: agent?.threadId ?? null,
      harnessVersion: agent?.harnessVersion ?? null,
      committedImageId: agent?.committedImageId ?? null,
      workspaceId,
      diff,
    },
  });
  return { state };
}

export function verdictText(verdict: Verdict): string {
  if (verdict.total === null) return verdict.ok ? "pass" : "fail";
  return `${verdict.passed ?? 0}/${verdict.total}`;
}
