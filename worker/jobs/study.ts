import { studyPreflightJob, trialRunJob } from "../../src/server/core/jobs/study-jobs";
import type { ArtifactSource } from "../../src/server/core/artifacts/artifact-source";
import { runPreflight, type PreflightDeps } from "../../src/server/worker/trials/preflight";
import type { TrialRunDeps } from "../../src/server/worker/trials/trial-context";
import { runTrial } from "../../src/server/worker/trials/trial-run";
import type { JobContext, JobHandler } from "../job-handler";

/** A job's artefacts under its lease (a worker on another host's source fetches only for the job it holds). */
function leasedArtifacts(artifacts: ArtifactSource | undefined, context: JobContext): ArtifactSource | undefined {
  if (!artifacts?.forLease) return artifacts;
  if (!context.lease)
    throw new Error("This job came without a lease (a BullMQ job id and lock): it cannot be run here.");
  return artifacts.forLease(context.lease);
}

export function createPreflightHandler(
  deps: PreflightDeps,
): JobHandler<typeof studyPreflightJob.schema, typeof studyPreflightJob.result> {
  return {
    ...studyPreflightJob,
    handler: (data, context) => runPreflight({ ...deps, artifacts: leasedArtifacts(deps.artifacts, context) }, data),
  };
}

/** A worker on another host: the model run of a trial is opened with the dashboard (its gateway holds the credential). */
export interface RemoteModelRuns {
  open(options: { runId: string; lease: { jobId: string; lock: string } }): Promise<void>;
  forget(runId: string): void;
}

export function createTrialRunHandler(
  deps: TrialRunDeps & { modelRuns?: RemoteModelRuns | undefined },
): JobHandler<typeof trialRunJob.schema, typeof trialRunJob.result> {
  const { modelRuns, ...trialDeps } = deps;
  return {
    ...trialRunJob,
    async handler(data, context) {
      const artifacts = leasedArtifacts(trialDeps.artifacts, context);
      if (!modelRuns || !context.lease) return runTrial({ ...trialDeps, artifacts }, data);
      // the run id the trial's agent run uses (src/server/worker/trials/trial-context.ts)
      const runId = `${data.trialId}-${data.attempt}`;
      await modelRuns.open({ runId, lease: context.lease });
      try {
        return await runTrial({ ...trialDeps, artifacts }, data);
      } finally {
        modelRuns.forget(runId);
      }
    },
  };
}
