import fs from "node:fs";
import type { ArtifactSource } from "../../core/artifacts/artifact-source";
import type { AgentRunInput, AgentRunResult } from "../../core/agents/agent-run";
import type { CodexEvent } from "../../core/agents/codex-events";
import type { TokenUsage } from "../../../shared/token-usage";
import type { ActiveTrialState } from "../../../shared/vocabulary";
import type { EventPublisher } from "../../core/events/event-stream";
import type { TrialRunJob } from "../../core/jobs/study-jobs";
import type { WorkerIdentity } from "../../core/runtime/container-spec";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { dataDirPaths, type DataDirPaths } from "../../core/storage/data-dir";
import { openTrialLog, type TrialLog } from "../../core/trial-records/trial-log";
import type { WorkspaceKindSetting } from "../../core/workspaces/workspace-kind";

export interface TrialRunDeps {
  runtime: ContainerRuntime;
  dataDir: string;
  publish: EventPublisher;
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
  /** Why this worker gave up on its running trials (it is stopping, their containers removed), or null. */
  leaving?: () => string | null;
  /** Where snapshots, test files and images come from and results go (default: the shared data dir, nothing to do). */
  artifacts?: ArtifactSource;
  pollMs?: number;
  clock?: () => number;
  /** Which kind of workspace trials get (INVARIANT_WORKSPACE_KIND; default auto: probed once per process). */
  workspaceKind?: WorkspaceKindSetting;
}

export type TrialProgressState = ActiveTrialState;

/** What every step of one trial attempt shares: its ids, its files, its log and how it reports progress. */
export interface TrialContext {
  deps: TrialRunDeps;
  job: TrialRunJob;
  ids: { projectId: string; studyId: string; trialId: string; workerId: string };
  /** The agent run's id (also the gateway's metering key). */
  runId: string;
  files: ReturnType<DataDirPaths["trialAttempt"]>;
  log: TrialLog;
  /** A timestamped line in the trial log. */
  note: (text: string) => void;
  /** The state of the last step published (null before the first). */
  state: () => TrialProgressState | null;
  /** A step: noted in the log and published as `trial.progress`. */
  progress: (
    state: TrialProgressState,
    step: string,
    extra?: { usage?: TokenUsage | null; commandsRun?: number },
  ) => Promise<unknown>;
}

export function openTrialContext(deps: TrialRunDeps, job: TrialRunJob): TrialContext {
  const clock = deps.clock ?? Date.now;
  const ids = { projectId: job.projectId, studyId: job.studyId, trialId: job.trialId, workerId: deps.worker.id };
  const files = dataDirPaths(deps.dataDir).trialAttempt({ trialId: job.trialId, attempt: job.attempt });
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  const log = openTrialLog({
    file: files.log,
    publish: (text) => deps.publish({ type: "trial.log", ...ids, data: { attempt: job.attempt, text } }),
  });
  const note = (text: string) => log.writeNote(`[${new Date(clock()).toISOString().slice(11, 19)}] ${text}\n`);
  let state: TrialProgressState | null = null;
  return {
    deps,
    job,
    ids,
    runId: `${job.trialId}-${job.attempt}`,
    files,
    log,
    note,
    state: () => state,
    progress: (next, step, extra = {}) => {
      state = next;
      note(step);
      return deps.publish({
        type: "trial.progress",
        ...ids,
        data: {
          attempt: job.attempt,
          state: next,
          step,
          usage: extra.usage ?? null,
          commandsRun: extra.commandsRun ?? null,
        },
      });
    },
  };
}
