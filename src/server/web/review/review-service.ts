import { AppError } from "../../core/errors/app-error";
import { displayPath, type BytePath } from "../../../lib/files/byte-path";
import {
  REVIEW_PAGE_DEFAULT,
  type ReviewFileView,
  type ReviewSubject,
  type ReviewFilesView,
  type ReviewAgainst,
  type ReviewSummaryView,
  type ReviewTotals,
  type TranscriptView,
} from "../../../shared/review-schemas";
import { createDiffCache, type DiffCache, type ReviewDiff } from "./diff-cache";
import { snapshotSide } from "./file-sides";
import { compareFile, compareTrials } from "./review-compare";
import { fileItem, languageOf, linesCounted, pathOfKey, reviewPath } from "./review-files";
import {
  configurationInfo,
  findTrial,
  isLive,
  isReviewable,
  trialDiff,
  trialSide,
  type ReviewContext,
} from "./review-trials";
import type { ReviewQueries, ReviewTrialRecord } from "./review.queries";
import { fileBytesDownload, patchDownload, sessionPatchDownload } from "./trial-downloads";
import { subjectDiff, subjectWord } from "./review-sessions";
import { transcriptItems } from "./transcript";
import { addComment, listComments, removeComment } from "./review-comments";
import type { ReviewCommentQueries } from "./review-comments.queries";
import type { AddCommentInput } from "../../../shared/review-comment-schemas";
import { trialName } from "../../../shared/domain-names";
import { parentDiff, type ParentDiff } from "./review-parent";

export type { ReviewDownload } from "./trial-downloads";

/** How many of the paths the diff left out a files page lists. */
const MAX_LEFT_OUT_LISTED = 200;

/** Totals from the diff while the workspace is there; else what the worker recorded; else null. */
async function totalsOf(context: ReviewContext, record: ReviewTrialRecord): Promise<ReviewTotals | null> {
  if (record.trial.workspaceId) {
    try {
      const diff = await trialDiff(context, record);
      const totals: ReviewTotals = { files: diff.changes.length, insertions: 0, deletions: 0 };
      for (const change of diff.changes) {
        totals.insertions += change.insertions;
        totals.deletions += change.deletions;
      }
      return totals;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
  }
  return record.trial.diff;
}

async function summary(context: ReviewContext, input: { trialId: string }): Promise<ReviewSummaryView> {
  const record = await findTrial(context, input.trialId);
  const { trial } = record;
  return {
    trialId: trial.id,
    studyId: record.studyId,
    projectId: record.projectId,
    attempt: trial.attempt,
    state: trial.state,
    step: trial.step,
    workspaceId: trial.workspaceId,
    snapshotId: record.snapshotId,
    configuration: configurationInfo(record),
    verdict: trial.verdict,
    tokens: trial.tokens,
    agentSeconds: trial.agentSeconds,
    totals: await totalsOf(context, record),
    testSteering: trial.testSteering,
    error: trial.error,
    startedAt: trial.startedAt,
    finishedAt: trial.finishedAt,
    live: isLive(record),
    ...(await family(context, record)),
  };
}

/** The trial a follow-up continued, and the follow-ups of this one (review feedback sent back to its agent). */
async function family(
  context: ReviewContext,
  record: ReviewTrialRecord,
): Promise<Pick<ReviewSummaryView, "parent" | "followUps">> {
  const parentId = record.trial.parentTrialId;
  const [parent] = parentId ? await context.reviews.trials([parentId]) : [];
  const followUps = await context.reviews.trials(await context.reviews.followUpIds(record.trial.id));
  return {
    parent: parent ? { id: parent.trial.id, name: trialName(parent.trial) } : null,
    followUps: followUps.map(({ trial }) => ({
      id: trial.id,
      name: trialName(trial),
      state: trial.state,
      verdict: trial.verdict,
    })),
  };
}

type FilesInput = ReviewSubject & {
  cursor?: number | undefined;
  limit?: number;
  opened?: string | true | undefined;
  against?: ReviewAgainst | undefined;
};

/** The changes a files page lists: against the snapshot, or a follow-up's against its parent (review-parent.ts). */
async function listedDiff(context: ReviewContext, input: FilesInput) {
  if (input.against === "parent" && "trialId" in input) {
    const compared = await parentDiff(context, input.trialId);
    return { base: compared.child, changes: compared.changes, compared };
  }
  const diff = await subjectDiff(context, input);
  return { base: diff, changes: diff.changes, compared: null };
}

async function files(context: ReviewContext, input: FilesInput): Promise<ReviewFilesView> {
  const { base: diff, changes, compared } = await listedDiff(context, input);
  const start = input.cursor ?? 0;
  const end = start + (input.limit ?? REVIEW_PAGE_DEFAULT);
  const view: ReviewFilesView = {
    items: changes.slice(start, end).map(fileItem),
    nextCursor: end < changes.length ? end : null,
    total: changes.length,
    skipped: diff.skipped.map((entry) => ({ ...reviewPath(entry.path), kind: entry.kind })),
    leftOut: diff.leftOut.slice(0, MAX_LEFT_OUT_LISTED).map(reviewPath),
    leftOutTotal: diff.leftOut.length,
    truncated: changes.some((change) => !linesCounted(change)),
  };
  if (input.opened === undefined || start > 0) return view;
  if (compared) {
    const path = input.opened === true ? changes[0]?.path : pathOfKey(input.opened);
    const opened = path === undefined ? null : await parentFileOf(context, compared, path).catch(() => null);
    return { ...view, opened };
  }
  return { ...view, opened: await openedFile(context, diff, input.opened, subjectWord(input)) };
}

/** A follow-up's file against its parent: the parent's result on the left, the follow-up's on the right. */
async function parentFileOf(context: ReviewContext, compared: ParentDiff, path: BytePath): Promise<ReviewFileView> {
  const { parent, child } = compared;
  if (!isReviewable(child, path) && !isReviewable(parent, path))
    throw new AppError({
      code: "NOT_FOUND",
      message: `${displayPath(path)} is neither changed by this trial or its parent nor a file of its snapshot.`,
    });
  const [before, after] = await Promise.all([trialSide(parent, path), trialSide(child, path)]);
  return { ...reviewPath(path), language: languageOf(path), before, after };
}

/** The diff `files` carries for the file the page opens first; null (not an error) when it has none. */
async function openedFile(
  context: ReviewContext,
  diff: ReviewDiff,
  opened: string | true,
  word: string,
): Promise<ReviewFileView | null> {
  try {
    const path = opened === true ? diff.changes[0]?.path : pathOfKey(opened);
    return path === undefined ? null : await fileOf(context, diff, path, word);
  } catch (error) {
    if (error instanceof AppError) return null; // the page asks for it on its own and shows why
    throw error;
  }
}

async function file(
  context: ReviewContext,
  input: ReviewSubject & { pathKey: string; against?: ReviewAgainst | undefined },
): Promise<ReviewFileView> {
  const path = pathOfKey(input.pathKey);
  if (input.against === "parent" && "trialId" in input)
    return parentFileOf(context, await parentDiff(context, input.trialId), path);
  return fileOf(context, await subjectDiff(context, input), path, subjectWord(input));
}

async function fileOf(context: ReviewContext, diff: ReviewDiff, path: BytePath, word: string): Promise<ReviewFileView> {
  if (!isReviewable(diff, path))
    throw new AppError({
      code: "NOT_FOUND",
      message: `${displayPath(path)} is neither changed by this ${word} nor a file of its snapshot.`,
    });
  const [before, after] = await Promise.all([
    snapshotSide({ dataDir: context.dataDir, manifest: diff.manifest, entry: diff.tracked.get(path) }),
    trialSide(diff, path),
  ]);
  return { ...reviewPath(path), language: languageOf(path), before, after };
}

async function transcript(
  context: ReviewContext,
  input: { trialId: string; attempt?: number | undefined },
): Promise<TranscriptView> {
  const record = await findTrial(context, input.trialId);
  const attempt = input.attempt ?? record.trial.attempt;
  if (attempt > record.trial.attempt)
    throw new AppError({
      code: "NOT_FOUND",
      message: `Trial ${record.trial.id} has had ${record.trial.attempt} attempt(s); there is no attempt ${attempt}.`,
    });
  const events = await context.reviews.transcriptEvents(record.trial.id);
  return {
    trialId: record.trial.id,
    attempt,
    items: transcriptItems({ trialId: record.trial.id, attempt, events }),
    live: attempt === record.trial.attempt && isLive(record),
  };
}

export interface ReviewServiceDeps {
  dataDir: string;
  reviews: ReviewQueries;
  comments: ReviewCommentQueries;
  cache?: DiffCache;
  clock?: () => Date;
}

/**
 * The trial review (web side, read-only): what a trial (or a private-copy session, review-sessions.ts)
 * changed against its snapshot, file by file and as one patch, its transcript, and trials side by side. Diffs come from the cache
 * (diff-cache.ts), so paging, the next file and compare never recompute one.
 */
export function createReviewService(deps: ReviewServiceDeps) {
  const context: ReviewContext = {
    dataDir: deps.dataDir,
    reviews: deps.reviews,
    cache: deps.cache ?? createDiffCache({ dataDir: deps.dataDir }),
  };
  const commentDeps = { context, comments: deps.comments, now: deps.clock ?? (() => new Date()) };
  return {
    comments: (input: { trialId: string }) => listComments(commentDeps, input.trialId),
    addComment: (input: AddCommentInput, author: string) => addComment(commentDeps, { input, author }),
    removeComment: (input: { commentId: string }) => removeComment(commentDeps, input.commentId),
    summary: (input: { trialId: string }) => summary(context, input),
    files: (input: Parameters<typeof files>[1]) => files(context, input),
    file: (input: Parameters<typeof file>[1]) => file(context, input),
    transcript: (input: Parameters<typeof transcript>[1]) => transcript(context, input),
    compare: (input: Parameters<typeof compareTrials>[1]) => compareTrials(context, input),
    compareFile: (input: Parameters<typeof compareFile>[1]) => compareFile(context, input),
    patch: (input: { trialId: string }) => patchDownload(context, input),
    sessionPatch: (input: { sessionId: string }) => sessionPatchDownload(context, input),
    fileBytes: (input: Parameters<typeof fileBytesDownload>[1]) => fileBytesDownload(context, input),
  };
}

export type ReviewService = ReturnType<typeof createReviewService>;
