import { AppError, isAppError } from "../../core/errors/app-error";
import type { BytePath } from "../../../lib/files/byte-path";
import type { ReviewConfigurationInfo, ReviewSide } from "../../../shared/review-schemas";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { sideRoot, type DiffCache, type ReviewDiff } from "./diff-cache";
import { MISSING_SIDE, workspaceSide } from "./file-sides";
import type { ReviewQueries, ReviewTrialRecord } from "./review.queries";
import { trialTitle } from "../../../shared/domain-names";

/** What the review's parts share: finding a trial, its label, and its cached diff. */
export interface ReviewContext {
  dataDir: string;
  reviews: ReviewQueries;
  cache: DiffCache;
}

export function isLive(record: ReviewTrialRecord): boolean {
  return !isTerminalTrialState(record.trial.state);
}

export async function findTrial(context: ReviewContext, trialId: string): Promise<ReviewTrialRecord> {
  const record = await context.reviews.trial(trialId);
  if (!record) throw new AppError({ code: "NOT_FOUND", message: `No trial ${trialId}. It may have been deleted.` });
  return record;
}

export function configurationInfo(record: ReviewTrialRecord): ReviewConfigurationInfo {
  const { configuration, trial } = record;
  return {
    number: configuration.choice,
    harness: configuration.harness,
    model: configuration.model,
    reasoningEffort: configuration.reasoningEffort,
    repeat: trial.repeat,
    label: trialTitle({ choice: configuration.choice, repeat: trial.repeat }, configuration.label),
  };
}

/** The trial's workspace diff (cached), or PRECONDITION_FAILED when the trial has no workspace yet. */
export async function trialDiff(context: ReviewContext, record: ReviewTrialRecord): Promise<ReviewDiff> {
  const { workspaceId } = record.trial;
  if (!workspaceId)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Trial ${record.trial.id} has no workspace yet: it is ${record.trial.state}. Its changes can be reviewed once its agent has started.`,
    });
  const rootStamp = await context.cache.rootStamp(workspaceId).catch((error: unknown) => {
    // a worker on another host keeps a running trial's workspace there: its changed files come with its results
    if (isLive(record) && isAppError(error) && error.code === "NOT_FOUND")
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: `Trial ${record.trial.id} is running on a worker on another host: its changes arrive here with its results when it ends. Its log and transcript are live meanwhile.`,
      });
    throw error;
  });
  const { attempt, state, finishedAt } = record.trial;
  return context.cache.get({
    workspaceId,
    stamp: `${attempt}|${state}|${finishedAt ?? ""}|${rootStamp}`,
    live: isLive(record),
  });
}

/** True for a path the review may show from a workspace: a change of the diff or a file of the snapshot. */
export function isReviewable(diff: ReviewDiff, path: BytePath): boolean {
  return diff.byPath.has(path) || diff.tracked.has(path);
}

/** A workspace's side of a path (missing when the path is neither changed nor in the snapshot). */
export function trialSide(diff: ReviewDiff, path: BytePath): Promise<ReviewSide> {
  if (!isReviewable(diff, path)) return Promise.resolve(MISSING_SIDE);
  const change = diff.byPath.get(path);
  const known = change ? change.after : (diff.tracked.get(path) ?? null);
  return workspaceSide({ root: sideRoot(diff, path), path, known });
}
