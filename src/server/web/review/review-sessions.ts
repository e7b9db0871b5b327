import { AppError } from "../../core/errors/app-error";
import type { ReviewSubject } from "../../../shared/review-schemas";
import type { ReviewDiff } from "./diff-cache";
import { findTrial, trialDiff, type ReviewContext } from "./review-trials";
import type { ReviewSessionRecord } from "./review.queries";

/**
 * A session's review: a private copy's workspace diffed against the snapshot it started from, read
 * through the same cache, file sides and patch as a trial's. A direct session has nothing to review (it
 * wrote the project itself); an exited one may still be resumed, so its diff is stamped by its state.
 */
export async function findSession(context: ReviewContext, sessionId: string): Promise<ReviewSessionRecord> {
  const record = await context.reviews.session(sessionId);
  if (!record) throw new AppError({ code: "NOT_FOUND", message: `No session ${sessionId}. It may have been deleted.` });
  return record;
}

export async function sessionDiff(context: ReviewContext, record: ReviewSessionRecord): Promise<ReviewDiff> {
  const { workspaceId } = record;
  if (!workspaceId)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message:
        record.mode === "direct"
          ? `Session ${record.id} worked in the project directory itself: its changes are already there, so there is no copy to review.`
          : `Session ${record.id} never ran, so it changed nothing.`,
    });
  const rootStamp = await context.cache.rootStamp(workspaceId);
  return context.cache.get({
    workspaceId,
    stamp: `session|${record.state}|${record.endedAt ?? ""}|${rootStamp}`,
    live: record.state !== "finished",
  });
}

/** The diff a review subject names: a trial's or a session's (cached alike). */
export async function subjectDiff(context: ReviewContext, subject: ReviewSubject): Promise<ReviewDiff> {
  if ("sessionId" in subject) return sessionDiff(context, await findSession(context, subject.sessionId));
  return trialDiff(context, await findTrial(context, subject.trialId));
}

/** What the review's words call the subject ("this trial", "this session"). */
export function subjectWord(subject: ReviewSubject): string {
  return "sessionId" in subject ? "session" : "trial";
}
