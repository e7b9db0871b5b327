import { studyPreflightJob, trialRunJob } from "../../src/server/jobs/study-jobs";
import { runPreflight, type PreflightDeps } from "../../src/server/trials/preflight";
import type { TrialRunDeps } from "../../src/server/trials/trial-context";
import { runTrial } from "../../src/server/trials/trial-run";
import type { JobHandler } from "../job-handler";

export function createPreflightHandler(
  deps: PreflightDeps,
): JobHandler<typeof studyPreflightJob.schema, typeof studyPreflightJob.result> {
  return { ...studyPreflightJob, handler: (data) => runPreflight(deps, data) };
}

export function createTrialRunHandler(
  deps: TrialRunDeps,
): JobHandler<typeof trialRunJob.schema, typeof trialRunJob.result> {
  return { ...trialRunJob, handler: (data) => runTrial(deps, data) };
}
