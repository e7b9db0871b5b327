import { jobHarness } from "./job-harness";
import type { JobQueue } from "../../core/jobs/job-queue";
import { followUpSourceSchema, trialJobId, trialRunJob, type TrialRunJob } from "../../core/jobs/study-jobs";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import type { StudyQueries } from "./studies.queries";
import type { TrialJobSource } from "./trial-dispatch.queries";
import { MANIFEST_VERSION, type ManifestInputs } from "../../../shared/trial-manifest";
import { messageOf } from "../../../shared/error-message";

/** A trial's job from its parsed rows; the schema checks it once more before it is queued. */
function jobFor(source: TrialJobSource): TrialRunJob {
  const { configuration } = source;
  return trialRunJob.schema.parse({
    studyId: source.studyId,
    projectId: source.projectId,
    snapshotId: source.snapshotId,
    image: source.imageId,
    testCommand: source.testCommand,
    junitPath: source.junitPath,
    testFiles: source.testFiles,
    network: source.network,
    limits: source.limits,
    runAsRoot: source.runAsRoot,
    diskBudgetBytes: source.diskBudgetBytes,
    evalTimeoutMs: source.evalTimeoutSec * 1000,
    trialId: source.trialId,
    attempt: source.attempt,
    // a follow-up's prompt is the review's feedback, sent into the parent's conversation
    prompt: source.followUp?.prompt ?? source.taskPrompt,
    harness: jobHarness(configuration),
    agentTimeoutMs: source.agentTimeoutSec * 1000,
    budgetTokens: source.tokenBudget,
    allowHostedTools: source.allowHostedTools,
    followUp: source.followUp ? followUpSourceSchema.parse(source.followUp) : null,
  });
}

/** The trial's manifest: what its job carries, and the study's frozen facts around it. */
function manifestOf(source: TrialJobSource): ManifestInputs {
  const { configuration } = source;
  return {
    version: MANIFEST_VERSION,
    study: { id: source.studyId, projectId: source.projectId },
    environment: { ...source.environment, imageId: source.imageId },
    snapshot: { id: source.snapshotId, ...source.snapshot },
    configuration: {
      harness: configuration.harness,
      model: configuration.model,
      reasoningEffort: configuration.reasoningEffort,
      instructions: configuration.instructions,
      overrides: configuration.overrides,
      command: configuration.command,
    },
    taskPrompt: source.taskPrompt,
    testCommand: source.testCommand,
    junitPath: source.junitPath,
    testFiles: source.testFiles,
    limits: { ...source.limits, network: source.network, allowHostedTools: source.allowHostedTools },
    concurrency: source.concurrency,
    agentTimeoutSec: source.agentTimeoutSec,
    evalTimeoutSec: source.evalTimeoutSec,
    tokenBudget: source.tokenBudget,
    attempt: source.attempt,
    followUp: source.followUp
      ? {
          parentTrialId: source.followUp.parentTrialId,
          agentImage: source.followUp.agentImage,
          prompt: source.followUp.prompt,
        }
      : null,
  };
}

/**
 * Hands a running study's trials to the queue, never more at once than the study's concurrency.
 * Only trials holding a slot are in the queue, so the cap holds however many workers take jobs.
 * A job's id is its trial id and attempt: queueing the same attempt twice (a double click, a replayed
 * event, a restart between queueing and recording it) is a no-op in BullMQ.
 */
export function createTrialDispatcher(deps: {
  studies: StudyQueries;
  queue: JobQueue;
  log: (message: string) => void;
  clock: () => Date;
}) {
  const withLock = createKeyedLock();

  return {
    /** Queues waiting trials of a running study until its concurrency is used; returns how many were queued. */
    topUp(studyId: string): Promise<number> {
      return withLock(studyId, async () => {
        const study = await deps.studies.state(studyId);
        if (study?.state !== "running") return 0;
        const { inFlight, waiting } = await deps.studies.dispatchState(studyId);
        let queued = 0;
        for (const trialId of waiting.slice(0, Math.max(0, study.concurrency - inFlight))) {
          const trial = await deps.studies.trialJobSource(trialId);
          if (!trial) continue;
          try {
            await deps.queue.enqueue({
              job: trialRunJob,
              data: jobFor(trial),
              jobId: trialJobId({ trialId, attempt: trial.attempt }),
            });
            await deps.studies.markEnqueued({ trialId, now: deps.clock(), manifest: manifestOf(trial) });
            queued += 1;
          } catch (error) {
            deps.log(`studies: could not queue trial ${trialId}: ${messageOf(error)}; will try again`);
            break;
          }
        }
        return queued;
      });
    },
  };
}

export type TrialDispatcher = ReturnType<typeof createTrialDispatcher>;
