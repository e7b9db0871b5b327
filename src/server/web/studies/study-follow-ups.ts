import { AppError, isAppError } from "../../core/errors/app-error";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { readWorkspace } from "../../core/workspaces/workspace-store";
import {
  continueWithFeedbackInputSchema,
  feedbackPrompt,
  type ContinueWithFeedbackInput,
  type ContinueWithFeedbackResult,
} from "../../../shared/review-comment-schemas";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { trialName } from "../../../shared/domain-names";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import type { FollowUpPlan } from "./study-follow-up.queries";
import { announceStudyChange, requireStudy, type StudyControlDeps } from "./study-control";

/**
 * "Continue with feedback": a follow-up attempt of a finished trial, run headless from a copy of its
 * workspace in its committed result image, resuming its agent's conversation with the review comments as
 * the prompt (the worker side: src/server/worker/trials/trial-follow-up.ts), judged by the same captured
 * tests. A follow-up is a new trial of the same configuration with `parentTrialId`; it is no new repeat
 * and the study's per-configuration statistics leave it out (they compare first attempts).
 */
export interface FollowUpDeps extends StudyControlDeps {
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage">;
}

const refuse = (message: string, field = "trialIds") => new AppError({ code: "PRECONDITION_FAILED", field, message });

/** Why this trial cannot be continued (not finished, no workspace or image, no conversation), or null. */
async function blocker(deps: FollowUpDeps, study: StudyView, trial: TrialView): Promise<string | null> {
  const name = `${trialName(trial)} (${trial.id})`;
  if (!isTerminalTrialState(trial.state))
    return `${name} is ${trial.state}: only a finished trial can be continued with feedback. Wait for it to end.`;
  if (!trial.workspaceId) return `${name} kept no workspace to continue from (it ended before its agent started).`;
  const workspace = await readWorkspace({ dataDir: deps.dataDir, workspaceId: trial.workspaceId }).catch(
    (error: unknown) => {
      if (isAppError(error) && error.code === "NOT_FOUND") return null;
      throw error;
    },
  );
  if (!workspace) return `${name}'s workspace ${trial.workspaceId} was removed, so there is nothing to continue from.`;
  if (!trial.committedImageId)
    return `${name} has no result image: its agent container is committed when its agent finishes, and this one was not.`;
  if (trial.imageHost)
    return `${name} ran on a worker on another host, whose Docker engine keeps its result image; a follow-up runs on this host. Continue it in a session instead ("continue a result" fetches the image).`;
  if (!(await deps.runtime.inspectImage(trial.committedImageId)))
    return `${name}'s result image ${trial.committedImageId.replace(/^sha256:/, "").slice(0, 12)} is no longer in Docker (it was removed), so its agent cannot be continued.`;
  const configuration = study.configurations.find((candidate) => candidate.choice === trial.choice);
  if (configuration?.harness !== "command" && !trial.threadId)
    return `${name}'s agent recorded no conversation to resume (no thread id), so feedback cannot be sent back to it. Retry it instead.`;
  return null;
}

async function planFor(
  deps: FollowUpDeps,
  options: { study: StudyView; trialId: string; feedback: string | undefined; by: string },
): Promise<FollowUpPlan> {
  const trial = options.study.trials.find((candidate) => candidate.id === options.trialId);
  if (!trial)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "trialIds",
      message: `Trial ${options.trialId} is not a trial of this study.`,
    });
  const why = await blocker(deps, options.study, trial);
  if (why) throw refuse(why);
  const comments = await deps.studies.unsentComments(trial.id);
  const feedback = options.feedback ? [{ path: null, startLine: null, endLine: null, body: options.feedback }] : [];
  if (comments.length === 0 && feedback.length === 0)
    throw refuse(
      `${trialName(trial)} (${trial.id}) has no feedback to send: comment on its changes in the review, or give feedback with the action.`,
      "feedback",
    );
  return {
    parentTrialId: trial.id,
    configurationId: trial.configurationId,
    prompt: feedbackPrompt([...comments, ...feedback]),
    commentIds: comments.map((comment) => comment.id),
    extraComment: options.feedback ? { body: options.feedback, author: options.by } : null,
  };
}

/** Checks every listed trial first, then creates all follow-ups in one transaction and queues them; else nothing. */
export async function continueWithFeedback(
  deps: FollowUpDeps,
  options: { input: ContinueWithFeedbackInput; by: string },
): Promise<ContinueWithFeedbackResult> {
  const input = continueWithFeedbackInputSchema.parse(options.input);
  const study = await requireStudy(deps.studies, input.studyId);
  if (study.state === "preflight" || study.state === "refused" || study.state === "stopping")
    throw new AppError({
      code: "CONFLICT",
      message:
        study.state === "stopping"
          ? "This study is stopping; continue its trials once it has stopped."
          : "This study has no finished trials to continue.",
    });
  const plans: FollowUpPlan[] = [];
  for (const trialId of input.trialIds)
    plans.push(await planFor(deps, { study, trialId, feedback: input.feedback, by: options.by }));
  const created = await deps.studies.createFollowUps({ studyId: study.id, plans, now: deps.now() });
  if (!created.ok)
    throw new AppError({
      code: "CONFLICT",
      message:
        created.reason === "comments-changed"
          ? `Trial ${created.parentTrialId}'s comments changed meanwhile (another follow-up sent them, or one was removed); nothing was queued. Try again.`
          : `This study is ${created.state ?? "gone"} now; nothing was queued.`,
    });
  await deps.dispatcher.topUp(study.id);
  const count = created.trials.length;
  const reason = `${count} follow-up${count === 1 ? "" : "s"} with feedback queued by ${options.by}.`;
  deps.log(`studies: ${study.id}: ${reason}`);
  await announceStudyChange(deps, {
    studyId: study.id,
    projectId: study.projectId,
    reason,
    trialIds: created.trials.map((trial) => trial.id),
  });
  return { trials: created.trials };
}
