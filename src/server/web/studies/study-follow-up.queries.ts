import type { Db } from "../../core/db/client";
import type { StudyState } from "../../../shared/vocabulary";
import { REPEATABLE_STUDY_STATES } from "./study-repeat.queries";
import { commentView } from "./review-comment-view";
import type { ReviewCommentView } from "../../../shared/review-comment-schemas";

/** One follow-up to create: the trial it continues, its prompt, and the comments it carries to the agent. */
export interface FollowUpPlan {
  parentTrialId: string;
  configurationId: string;
  prompt: string;
  /** The parent's unsent comments that make up the prompt (marked sent in the new trial). */
  commentIds: string[];
  /** The feedback given with the action, kept as a whole-trial comment of the parent (sent in the new trial). */
  extraComment: { body: string; author: string } | null;
}

export type CreateFollowUpsResult =
  | { ok: true; trials: { id: string; parentTrialId: string }[] }
  | { ok: false; reason: "study-state"; state: StudyState | null }
  | { ok: false; reason: "comments-changed"; parentTrialId: string };

class Abort extends Error {
  constructor(readonly result: CreateFollowUpsResult) {
    super("follow-ups aborted");
  }
}

/**
 * Creates every follow-up trial (same study and configuration, `parentTrialId`, `feedback` = its prompt),
 * marks the comments they carry as sent in them, and puts a finished study back to `running`. One
 * transaction: all of them or none (a comment sent or removed meanwhile aborts it).
 */
async function createFollowUps(
  db: Db,
  options: { studyId: string; plans: readonly FollowUpPlan[]; now: Date },
): Promise<CreateFollowUpsResult> {
  const { studyId, now } = options;
  try {
    return await db.$transaction(async (tx) => {
      const study = await tx.study.findUnique({ where: { id: studyId }, select: { state: true } });
      const state = (study?.state ?? null) as StudyState | null;
      if (!state || !REPEATABLE_STUDY_STATES.includes(state)) return { ok: false, reason: "study-state", state };
      let tick = now.getTime();
      const trials: { id: string; parentTrialId: string }[] = [];
      for (const plan of options.plans) {
        const created = await tx.trial.create({
          data: {
            studyId,
            configurationId: plan.configurationId,
            parentTrialId: plan.parentTrialId,
            feedback: plan.prompt,
            queuedAt: new Date(tick++),
          },
          select: { id: true },
        });
        const { count } = await tx.reviewComment.updateMany({
          where: { id: { in: plan.commentIds }, trialId: plan.parentTrialId, sentInTrial: null },
          data: { sentInTrial: created.id },
        });
        if (count !== plan.commentIds.length)
          throw new Abort({ ok: false, reason: "comments-changed", parentTrialId: plan.parentTrialId });
        if (plan.extraComment)
          await tx.reviewComment.create({
            data: { trialId: plan.parentTrialId, ...plan.extraComment, sentInTrial: created.id, createdAt: now },
          });
        trials.push({ id: created.id, parentTrialId: plan.parentTrialId });
      }
      await tx.study.update({ where: { id: studyId }, data: { state: "running", finishedAt: null, stopReason: null } });
      return { ok: true, trials };
    });
  } catch (error) {
    if (error instanceof Abort) return error.result;
    throw error;
  }
}

export function createStudyFollowUpQueries(db: Db) {
  return {
    createFollowUps: (options: { studyId: string; plans: readonly FollowUpPlan[]; now: Date }) =>
      createFollowUps(db, options),
    /** The review comments of the given trials, oldest first (the study's report lists them). */
    async trialComments(trialIds: readonly string[]): Promise<ReviewCommentView[]> {
      const rows = await db.reviewComment.findMany({
        where: { trialId: { in: [...trialIds] } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      return rows.map(commentView);
    },
    /** A trial's comments not yet sent to its agent, oldest first. */
    async unsentComments(trialId: string) {
      return db.reviewComment.findMany({
        where: { trialId, sentInTrial: null },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true, path: true, startLine: true, endLine: true, body: true },
      });
    },
  };
}
