import type { ApplyPreviewView, ApplyRecordView } from "../shared/snapshot-schemas";
import type { ProjectView } from "../shared/project-schemas";
import type { StudySummaryView, StudyView, TrialView } from "../shared/study-schemas";
import type {
  EnvironmentVersionOutput,
  ProjectOutput,
  StudyOutput,
  StudySummaryOutput,
  TrialOutput,
  CliData,
} from "./cli-schemas";

/**
 * The API's views turned into the CLI's documented JSON shapes (cli-schemas.ts): field by field, so a
 * change to a view does not silently change what scripts read.
 */

export function projectOutput(p: ProjectView): ProjectOutput {
  return {
    id: p.id,
    name: p.name,
    hostPath: p.hostPath,
    networkMode: p.networkMode,
    cpus: p.cpus,
    memoryBytes: p.memoryBytes,
    swapBytes: p.swapBytes,
    pids: p.pids,
    baseImage: p.baseImage,
    defaultConfiguration: { ...p.defaultConfiguration },
    runTokenBudget: p.runTokenBudget,
    allowHostedTools: p.allowHostedTools,
    runAsRoot: p.runAsRoot,
    diskBudgetBytes: p.diskBudgetBytes,
    openFiles: p.openFiles,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export interface EnvironmentVersionLike {
  id: string;
  version: number;
  status: "building" | "ready" | "failed";
  active: boolean;
  origin: string;
  command: string | null;
  parentVersion: number | null;
  imageTag: string;
  imageId: string | null;
  durationMs: number | null;
  sizeBytes: number | null;
  error: string | null;
  createdAt: string;
  usedByStudies: number;
}

export function environmentVersionOutput(v: EnvironmentVersionLike): EnvironmentVersionOutput {
  return {
    id: v.id,
    version: v.version,
    status: v.status,
    active: v.active,
    origin: v.origin,
    command: v.command,
    parentVersion: v.parentVersion,
    imageTag: v.imageTag,
    imageId: v.imageId,
    durationMs: v.durationMs,
    sizeBytes: v.sizeBytes,
    error: v.error,
    createdAt: v.createdAt,
    usedByStudies: v.usedByStudies,
  };
}

export function studySummaryOutput(s: StudySummaryView): StudySummaryOutput {
  const { counts } = s;
  return {
    id: s.id,
    projectId: s.projectId,
    projectName: s.projectName,
    title: s.title,
    state: s.state,
    shownState: s.shownState,
    refusal: s.refusal,
    baseline: s.baseline,
    counts: {
      total: counts.total,
      queued: counts.queued,
      running: counts.running,
      succeeded: counts.succeeded,
      failed: counts.failed,
      error: counts.error,
      stopped: counts.stopped,
      interrupted: counts.interrupted,
    },
    chosen: s.chosen ? { trialId: s.chosen.trialId, note: s.chosen.note, by: s.chosen.by, at: s.chosen.at } : null,
    createdAt: s.createdAt,
    finishedAt: s.finishedAt,
  };
}

export function trialOutput(t: TrialView): TrialOutput {
  return {
    id: t.id,
    choice: t.choice,
    repeat: t.repeat,
    attempt: t.attempt,
    state: t.state,
    outcome: t.outcome,
    step: t.step,
    verdict: t.verdict,
    error: t.error,
    exitCode: t.exitCode,
    agentSeconds: t.agentSeconds,
    evalSeconds: t.evalSeconds,
    tokens: t.tokens,
    commandsRun: t.commandsRun,
    workspaceId: t.workspaceId,
    diff: t.diff,
    queuedAt: t.queuedAt,
    startedAt: t.startedAt,
    finishedAt: t.finishedAt,
  };
}

export function studyOutput(s: StudyView): StudyOutput {
  return {
    ...studySummaryOutput(s),
    taskPrompt: s.taskPrompt,
    testCommand: s.testCommand,
    junitPath: s.junitPath,
    testFiles: s.testFiles.map((file) => ({ path: file.path, role: file.role, bytes: file.bytes })),
    snapshotId: s.snapshotId,
    environmentVersion: s.environment.version,
    concurrency: s.concurrency,
    agentTimeoutSec: s.agentTimeoutSec,
    evalTimeoutSec: s.evalTimeoutSec,
    tokenBudget: s.tokenBudget,
    createdBy: s.createdBy,
    startedAt: s.startedAt,
    configurations: s.configurations.map((c) => ({
      id: c.id,
      choice: c.choice,
      label: c.label,
      customLabel: c.customLabel,
      harness: c.harness,
      model: c.model,
      reasoningEffort: c.reasoningEffort,
      instructions: c.instructions,
      overrides: c.overrides,
      command: c.command,
      repeats: c.repeats,
      derivedFrom: c.derivedFrom,
    })),
    trials: s.trials.map(trialOutput),
  };
}

export function applyPreviewOutput(p: ApplyPreviewView): CliData<"apply">["preview"] {
  return {
    projectId: p.projectId,
    workspaceId: p.workspaceId,
    trialId: p.trialId ?? null,
    planHash: p.planHash,
    steps: p.steps.map((step) => ({ path: step.path, action: step.action })),
    totals: { files: p.totals.files, added: p.totals.added, modified: p.totals.modified, deleted: p.totals.deleted },
    conflicts: p.conflicts.map((c) => ({ path: c.path, reason: c.reason, message: c.message })),
  };
}

export function applyRecordOutput(r: ApplyRecordView): NonNullable<CliData<"apply">["result"]> {
  return {
    id: r.id,
    outcome: r.outcome,
    files: r.files.map((file) => ({ path: file.path, action: file.action })),
    conflicts: r.conflicts.map((c) => ({ path: c.path, reason: c.reason, message: c.message })),
    error: r.error,
    appliedBy: r.appliedBy,
    trialId: r.trialId,
    createdAt: r.createdAt,
  };
}

/** A verdict as people read it: "23/23", "13/23 (2 skipped)", "–". */
export function verdictText(verdict: { passed: number | null; total: number | null; skipped?: number | null } | null) {
  if (!verdict || verdict.total === null) return "–";
  const skipped = verdict.skipped ? ` (${verdict.skipped} skipped)` : "";
  return `${verdict.passed ?? 0}/${verdict.total}${skipped}`;
}
