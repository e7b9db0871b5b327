import type { Db } from "../../core/db/client";
import { networkModeSchema, type NetworkMode } from "../../../shared/project-schemas";
import type { ConfigurationView, TestFileView } from "../../../shared/study-schemas";
import { ACTIVE_TRIAL_STATES, OPEN_TRIAL_STATES, type TrialState } from "../../../shared/vocabulary";
import { containerLimitsSchema, type ManifestInputs } from "../../../shared/trial-manifest";
import { configurationView, parseJson } from "./study-views";
import { parseDependencies } from "../environments/environments.queries";
import type { RuntimeReport } from "../../../shared/dependency-schemas";
import type { FollowUpSource } from "../../core/jobs/study-jobs";

/** Trials as the dispatcher and the sweeper see them: slots, queue marks, and what a trial's job needs. */

/** Everything a trial's job is made of, parsed: the study's frozen inputs, the project's limits, the configuration. */
export interface TrialJobSource {
  trialId: string;
  attempt: number;
  studyId: string;
  projectId: string;
  snapshotId: string | null;
  imageId: string | null;
  taskPrompt: string;
  testCommand: string;
  junitPath: string | null;
  testFiles: TestFileView[];
  agentTimeoutSec: number;
  evalTimeoutSec: number;
  network: NetworkMode;
  /** Tokens the agent may use: the study's budget, else the project's run budget. */
  tokenBudget: number;
  allowHostedTools: boolean;
  limits: { cpus: number; memoryBytes: number; swapBytes: number; pids: number; openFiles: number };
  runAsRoot: boolean;
  diskBudgetBytes: number;
  configuration: ConfigurationView;
  /** What else the trial's manifest records: the environment version, the image digest, the snapshot's size, the concurrency. */
  environment: {
    versionId: string | null;
    version: number | null;
    imageDigest: string | null;
    runtimes: RuntimeReport[];
  };
  snapshot: { files: number | null; bytes: number | null };
  concurrency: number;
  /** A follow-up attempt: its prompt (the review feedback) and where it continues from; null for a first attempt. */
  followUp: (FollowUpSource & { prompt: string }) | null;
}

/** Where a follow-up continues from: its parent's latest attempt (workspace, result image, conversation). */
async function followUpOf(
  db: Db,
  row: { parentTrialId: string | null; feedback: string | null },
): Promise<TrialJobSource["followUp"]> {
  if (!row.parentTrialId) return null;
  const parent = await db.trial.findUnique({ where: { id: row.parentTrialId } });
  if (!parent?.workspaceId || !parent.committedImageId) return null;
  return {
    prompt: row.feedback ?? "",
    parentTrialId: parent.id,
    parentAttempt: parent.attempt,
    parentWorkspaceId: parent.workspaceId,
    agentImage: parent.committedImageId,
    resumeThreadId: parent.threadId,
    threadUsageBefore: {
      inputTokens: parent.inputTokens,
      cachedInputTokens: parent.cachedInputTokens,
      outputTokens: parent.outputTokens,
      reasoningTokens: parent.reasoningTokens,
    },
  };
}

function manifestFacts(study: {
  environmentVersionId: string | null;
  environment: { version: number; dependencies: string | null } | null;
  imageDigest: string | null;
  snapshot: { fileCount: number; bytes: bigint } | null;
  concurrency: number;
}): Pick<TrialJobSource, "environment" | "snapshot" | "concurrency"> {
  return {
    environment: {
      versionId: study.environmentVersionId,
      version: study.environment?.version ?? null,
      imageDigest: study.imageDigest,
      runtimes: parseDependencies(study.environment?.dependencies ?? null)?.runtimeReport ?? [],
    },
    snapshot: { files: study.snapshot?.fileCount ?? null, bytes: study.snapshot ? Number(study.snapshot.bytes) : null },
    concurrency: study.concurrency,
  };
}

/** A study with limits of its own (a rerun's, from its manifest) runs with them instead of the project's now. */
function withStudyLimits(source: TrialJobSource, json: string | null): TrialJobSource {
  if (json === null) return source;
  const parsed = containerLimitsSchema.safeParse(parseJson<unknown>(json, null));
  if (!parsed.success) return source;
  const { network, allowHostedTools, ...limits } = parsed.data;
  return { ...source, network, allowHostedTools, limits: { ...source.limits, ...limits } };
}

/** A trial holding a slot, for the sweeper that finds trials whose worker died. */
export interface SlotHolder {
  id: string;
  studyId: string;
  state: TrialState;
  attempt: number;
  workerId: string | null;
  startedAt: Date | null;
  enqueuedAt: Date | null;
}

async function trialJobSource(db: Db, trialId: string): Promise<TrialJobSource | null> {
  const row = await db.trial.findUnique({
    where: { id: trialId },
    include: {
      configuration: true,
      study: {
        include: {
          project: true,
          environment: { select: { version: true, dependencies: true } },
          snapshot: { select: { fileCount: true, bytes: true } },
        },
      },
    },
  });
  if (!row) return null;
  const { study } = row;
  const { project } = study;
  const source: TrialJobSource = {
    trialId: row.id,
    attempt: row.attempt,
    studyId: study.id,
    projectId: project.id,
    snapshotId: study.snapshotId,
    imageId: study.imageId,
    taskPrompt: study.taskPrompt,
    testCommand: study.testCommand,
    junitPath: study.junitPath,
    testFiles: parseJson<TestFileView[]>(study.testFiles, []),
    agentTimeoutSec: study.agentTimeoutSec,
    evalTimeoutSec: study.evalTimeoutSec,
    network: networkModeSchema.catch("none").parse(project.networkMode),
    tokenBudget: study.tokenBudget ?? project.runTokenBudget,
    allowHostedTools: project.allowHostedTools,
    limits: {
      cpus: project.cpus,
      memoryBytes: Number(project.memoryBytes),
      swapBytes: Number(project.swapBytes),
      pids: project.pids,
      openFiles: project.openFiles,
    },
    runAsRoot: project.runAsRoot,
    diskBudgetBytes: Number(project.diskBudgetBytes),
    configuration: configurationView(row.configuration),
    ...manifestFacts(study),
    followUp: await followUpOf(db, row),
  };
  return withStudyLimits(source, study.limits);
}

export function createTrialDispatchQueries(db: Db) {
  return {
    /** Trials of a running study that hold a slot (running, or handed to the queue), and the next ones waiting for a slot. */
    async dispatchState(studyId: string): Promise<{ inFlight: number; waiting: string[] }> {
      const trials = await db.trial.findMany({
        where: { studyId, state: { in: [...OPEN_TRIAL_STATES] } },
        select: { id: true, state: true, enqueuedAt: true },
        orderBy: [{ queuedAt: "asc" }, { id: "asc" }],
      });
      const waiting = trials.filter((trial) => trial.state === "queued" && trial.enqueuedAt === null);
      return { inFlight: trials.length - waiting.length, waiting: waiting.map((trial) => trial.id) };
    },

    trialJobSource: (trialId: string) => trialJobSource(db, trialId),

    /** Marks a trial handed to the queue, with the manifest of what its job carries. */
    async markEnqueued(options: { trialId: string; now: Date; manifest: ManifestInputs }): Promise<void> {
      await db.trial.updateMany({
        where: { id: options.trialId, state: "queued", enqueuedAt: null },
        data: { enqueuedAt: options.now, manifest: JSON.stringify(options.manifest) },
      });
    },

    async clearEnqueued(trialId: string): Promise<void> {
      await db.trial.updateMany({ where: { id: trialId, state: "queued" }, data: { enqueuedAt: null } });
    },

    /** Which of a study's trials were handed to the queue. */
    async enqueuedTrialIds(studyId: string): Promise<Set<string>> {
      const rows = await db.trial.findMany({ where: { studyId, enqueuedAt: { not: null } }, select: { id: true } });
      return new Set(rows.map((row) => row.id));
    },

    /** Trials that hold a slot, across studies. */
    async slotHolders(): Promise<SlotHolder[]> {
      const rows = await db.trial.findMany({
        where: { OR: [{ state: { in: [...ACTIVE_TRIAL_STATES] } }, { state: "queued", enqueuedAt: { not: null } }] },
        select: {
          id: true,
          studyId: true,
          state: true,
          attempt: true,
          workerId: true,
          startedAt: true,
          enqueuedAt: true,
        },
      });
      return rows.map((row) => ({ ...row, state: row.state as TrialState }));
    },
  };
}
