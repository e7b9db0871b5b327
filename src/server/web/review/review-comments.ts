import { AppError } from "../../core/errors/app-error";
import { fromText } from "../../../lib/files/byte-path";
import {
  addCommentInputSchema,
  type AddCommentInput,
  type ReviewCommentView,
} from "../../../shared/review-comment-schemas";
import { findTrial, isReviewable, trialDiff, trialSide, type ReviewContext } from "./review-trials";
import { splitLines } from "../../core/diffs/line-diff";
import type { ReviewCommentQueries } from "./review-comments.queries";

/**
 * Review comments on a trial: on a line or range of one of its files, or on the whole trial. Kept with the
 * trial (viewers read them), sent back to the agent by a follow-up (study-follow-ups.ts), listed in the
 * study's report. A sent comment stays as it was: it is part of what the follow-up's agent read.
 */
export interface ReviewCommentDeps {
  context: ReviewContext;
  comments: ReviewCommentQueries;
  now: () => Date;
}

/**
 * A commented path must be one the review shows for the trial: a file it changed, or one of its snapshot;
 * commented lines must be within the trial's version of it (when that is text).
 */
async function checkPath(
  context: ReviewContext,
  options: { trialId: string; path: string; endLine: number | null },
): Promise<void> {
  const { trialId, path, endLine } = options;
  const record = await findTrial(context, trialId);
  const diff = await trialDiff(context, record).catch((error: unknown) => {
    if (error instanceof AppError)
      throw new AppError({
        code: "PRECONDITION_FAILED",
        field: "path",
        message: `Trial ${trialId}'s files cannot be read (${error.message}), so a comment on ${path} cannot be checked; comment on the whole trial instead.`,
      });
    throw error;
  });
  const bytePath = fromText(path);
  if (!isReviewable(diff, bytePath))
    throw new AppError({
      code: "BAD_REQUEST",
      field: "path",
      message: `${path} is neither changed by trial ${trialId} nor a file of its snapshot: comment on a file the review lists.`,
    });
  if (endLine === null) return;
  const side = await trialSide(diff, bytePath);
  const lines = side.text === null ? null : splitLines(side.text).length;
  if (!side.exists || (lines !== null && endLine > lines))
    throw new AppError({
      code: "BAD_REQUEST",
      field: "endLine",
      message: side.exists
        ? `${path} has ${lines ?? 0} lines in trial ${trialId}'s version; line ${endLine} is past its end.`
        : `${path} was deleted by trial ${trialId}: comment on the file without lines, or on the whole trial.`,
    });
}

export async function addComment(
  deps: ReviewCommentDeps,
  options: { input: AddCommentInput; author: string },
): Promise<ReviewCommentView> {
  const input = addCommentInputSchema.parse(options.input);
  const path = input.path ?? null;
  const startLine = input.startLine ?? null;
  const endLine = startLine === null ? null : (input.endLine ?? startLine);
  if (path === null) await findTrial(deps.context, input.trialId);
  else await checkPath(deps.context, { trialId: input.trialId, path, endLine });
  return deps.comments.add({
    trialId: input.trialId,
    path,
    startLine,
    endLine,
    body: input.body,
    author: options.author,
    now: deps.now(),
  });
}

export async function removeComment(deps: ReviewCommentDeps, commentId: string): Promise<{ removed: true }> {
  const found = await deps.comments.find(commentId);
  if (!found) throw new AppError({ code: "NOT_FOUND", message: `No comment ${commentId}. It may have been removed.` });
  if (found.sentInTrial !== null || !(await deps.comments.removeUnsent(commentId)))
    throw new AppError({
      code: "CONFLICT",
      message: `This comment was sent to the agent in trial ${found.sentInTrial ?? "(a follow-up)"}; it stays as the follow-up's record of what the agent read.`,
    });
  return { removed: true };
}

export async function listComments(
  deps: ReviewCommentDeps,
  trialId: string,
): Promise<{ comments: ReviewCommentView[] }> {
  await findTrial(deps.context, trialId);
  return { comments: await deps.comments.list(trialId) };
}
