import { AppError } from "../../core/errors/app-error";
import { runPolicy } from "../../core/agents/run-policy";
import type { RunPolicy } from "../../core/gateway/request-policy";
import type { JobLocks, HeldJob } from "../../core/jobs/job-locks";
import { sendImageJob } from "../../core/jobs/image-jobs";
import { preflightJobId, studyPreflightJob, trialJobId, trialRunJob } from "../../core/jobs/study-jobs";
import type { TrialRecord, WorkerApiQueries } from "./worker-api.queries";

/**
 * A worker's lease on a job: the BullMQ job id and the token of the lock BullMQ gave the worker when it
 * took the job (and renews while it runs). A worker on another host names it on every call
 * (headers `x-invariant-job`, `x-invariant-job-lock`).
 */
export interface JobLease {
  jobId: string;
  lock: string;
}

/** What a leased job lets its worker read and deliver, worked out from the database, never from the job's data. */
export interface LeaseGrant {
  jobId: string;
  /** The worker token the lease is bound to. */
  worker: { id: string; name: string };
  studyId: string | null;
  snapshotId: string | null;
  image: string | null;
  testFiles: ReadonlySet<string>;
  /** A trial's attempt: its results may be delivered, and its model run opened. */
  trial: { trialId: string; attempt: number; budgetTokens: number | null; policy: RunPolicy } | null;
  /** An image.send job: the one image it may upload. */
  sendsImage: string | null;
}

const UNFINISHED: ReadonlySet<string> = new Set(["queued", "preparing", "agent", "evaluating"]);
/** A trial in any other state has ended (succeeded, failed, error, stopped, interrupted): no worker may deliver for it. */
export const isFinishedTrial = (state: string) => !UNFINISHED.has(state);

const forbidden = (message: string) => new AppError({ code: "FORBIDDEN", message });
/** Bindings not checked against Redis for this long are checked again (and dropped once their job ended). */
const RECHECK_MS = 10 * 60_000;

function trialGrant(held: HeldJob, trial: TrialRecord | null, data: { trialId: string; attempt: number }) {
  if (!trial) throw forbidden(`Job ${held.id} names trial ${data.trialId}, which this dashboard does not have.`);
  if (trial.attempt !== data.attempt || held.id !== trialJobId(trial))
    throw forbidden(`Job ${held.id} is not trial ${trial.trialId}'s current attempt (${trial.attempt}).`);
  if (isFinishedTrial(trial.state))
    throw forbidden(`Trial ${trial.trialId} is finished (${trial.state}): its job is nobody's any more.`);
  const manifest = trial.manifest;
  // the policy pins the configuration's model and its harness's API, as the manifest records them
  const harness = {
    kind: manifest?.configuration.harness ?? "command",
    model: manifest?.configuration.model ?? "",
  };
  return {
    study: trial.study,
    trial: {
      trialId: trial.trialId,
      attempt: trial.attempt,
      budgetTokens: manifest?.tokenBudget ?? null,
      policy: runPolicy({
        harness,
        network: manifest?.limits.network ?? "none",
        allowHostedTools: manifest?.limits.allowHostedTools ?? false,
      }),
    },
  };
}

/** What the job lets its worker do, from the dashboard's own records of the trial or study it names. */
async function grantFor(queries: WorkerApiQueries, held: HeldJob): Promise<Omit<LeaseGrant, "worker">> {
  const none = { jobId: held.id, studyId: null, snapshotId: null, image: null, testFiles: new Set<string>() };
  if (held.name === sendImageJob.name) {
    const data = sendImageJob.schema.safeParse(held.data);
    if (!data.success) throw forbidden(`Job ${held.id} is not an image.send job this dashboard queued.`);
    return { ...none, trial: null, sendsImage: data.data.imageId };
  }
  let granted: { study: TrialRecord["study"]; trial: LeaseGrant["trial"] };
  if (held.name === trialRunJob.name) {
    const data = trialRunJob.schema.safeParse(held.data);
    if (!data.success) throw forbidden(`Job ${held.id} is not a trial.run job this dashboard queued.`);
    granted = trialGrant(held, await queries.trial(data.data.trialId), data.data);
  } else if (held.name === studyPreflightJob.name) {
    const data = studyPreflightJob.schema.safeParse(held.data);
    const study = data.success ? await queries.study(data.data.studyId) : null;
    if (!study || held.id !== preflightJobId(study.studyId) || study.state !== "preflight")
      throw forbidden(`Job ${held.id} is not the preflight of a study waiting for one.`);
    granted = { study, trial: null };
  } else throw forbidden(`Job ${held.id} (${held.name}) is not one a worker on another host runs.`);
  const { study } = granted;
  return {
    ...none,
    studyId: study.studyId,
    snapshotId: study.snapshotId,
    image: study.imageId,
    testFiles: new Set(study.testFiles),
    trial: granted.trial,
    sendsImage: null,
  };
}

/**
 * Which jobs each worker token holds. A lease is valid while its job is running (active) in the queue
 * with exactly the lock the call presents, and it is bound to the first worker token that presents it
 * (the worker does so when it takes the job): another token presenting the same job is refused. What the
 * lease grants comes from the database's record of the trial or study the job names (a job forged into
 * Redis grants nothing another worker's real job would not).
 */
export function createJobLeases(deps: {
  locks: JobLocks;
  queries: WorkerApiQueries;
  /** Told when a bound lease is found ended (its job no longer runs with that lock). */
  onEnded?: (jobId: string) => void;
  clock?: () => number;
}) {
  const clock = deps.clock ?? Date.now;
  const bound = new Map<string, { grant: LeaseGrant; lock: string; checkedAt: number }>();
  const unbind = (jobId: string) => {
    bound.delete(jobId);
    deps.onEnded?.(jobId);
  };

  async function recheckOld(): Promise<void> {
    for (const [jobId, entry] of bound) {
      if (clock() - entry.checkedAt < RECHECK_MS) continue;
      const held = await deps.locks.held(jobId).catch(() => null);
      if (held?.lock === entry.lock) entry.checkedAt = clock();
      else unbind(jobId);
    }
  }

  return {
    /** The grant of the job the call names, for this worker token; 403 with what is wrong otherwise. */
    async check(options: { token: { id: string; name: string }; lease: JobLease | null }): Promise<LeaseGrant> {
      const { token, lease } = options;
      if (!lease)
        throw forbidden(
          "This call names no job: a worker names the job it holds (x-invariant-job, x-invariant-job-lock) on every call. Is this worker older than the dashboard?",
        );
      const held = await deps.locks.held(lease.jobId);
      if (!held || held.lock !== lease.lock) {
        if (bound.get(lease.jobId)?.lock === lease.lock) unbind(lease.jobId);
        throw forbidden(
          held
            ? `Job ${lease.jobId} is not leased to worker "${token.name}": another worker holds its lock.`
            : `Job ${lease.jobId} is not running: it is not leased to worker "${token.name}" (or to anyone).`,
        );
      }
      const entry = bound.get(lease.jobId);
      if (entry && entry.lock === lease.lock) {
        if (entry.grant.worker.id !== token.id)
          throw forbidden(
            `Job ${lease.jobId} is leased to worker "${entry.grant.worker.name}", not to "${token.name}".`,
          );
        entry.checkedAt = clock();
        return entry.grant;
      }
      if (entry) unbind(lease.jobId); // the job was taken again (another lock): the old lease is over
      const grant = { ...(await grantFor(deps.queries, held)), worker: { id: token.id, name: token.name } };
      const raced = bound.get(lease.jobId);
      if (raced?.lock === lease.lock && raced.grant.worker.id !== token.id)
        throw forbidden(`Job ${lease.jobId} is leased to worker "${raced.grant.worker.name}", not to "${token.name}".`);
      bound.set(lease.jobId, { grant, lock: lease.lock, checkedAt: clock() });
      void recheckOld();
      return grant;
    },
  };
}

export type JobLeases = ReturnType<typeof createJobLeases>;
