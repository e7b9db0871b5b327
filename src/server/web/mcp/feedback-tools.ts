import {
  addCommentInputSchema,
  continueWithFeedbackInputSchema,
  removeCommentInputSchema,
  reviewCommentsInputSchema,
} from "../../../shared/review-comment-schemas";
import { defineTool } from "./mcp-tool";

/** review_comments, trial_comment, comment_remove, trial_follow_up: review comments that go back to the agent. */

export const reviewComments = defineTool({
  name: "review_comments",
  title: "A trial's review comments",
  description:
    "The review comments on a trial, oldest first: on a line or range of a file, or on the whole trial; sentInTrial names the follow-up that received one.",
  access: "read",
  input: reviewCommentsInputSchema,
  run: async (input, { backend }) => ({ data: await backend.api.review.comments.query(input) }),
});

export const trialComment = defineTool({
  name: "trial_comment",
  title: "Comment on a trial",
  description:
    "Adds a review comment to a finished trial: on a file's line or range (path, startLine, endLine) or on the whole trial (no path). Send the unsent comments to the agent with trial_follow_up.",
  access: "write",
  input: addCommentInputSchema,
  run: async (input, { backend }) => {
    const comment = await backend.api.review.addComment.mutate(input);
    return { data: { comment }, text: `Added comment ${comment.id} on ${comment.path ?? "the whole trial"}.` };
  },
});

export const commentRemove = defineTool({
  name: "comment_remove",
  title: "Remove a review comment",
  description: "Removes a review comment that was not sent to the agent yet.",
  access: "write",
  input: removeCommentInputSchema,
  run: async (input, { backend }) => ({ data: await backend.api.review.removeComment.mutate(input) }),
});

export const trialFollowUp = defineTool({
  name: "trial_follow_up",
  title: "Continue trials with feedback",
  description:
    "Runs a follow-up attempt of each listed finished trial: its agent resumes its conversation in the trial's workspace with the trial's unsent review comments (plus `feedback`, the same for every trial) as the prompt, judged by the same tests. The follow-ups are new trials of the study (\"Trial 1.1.1\"); wait for them with study_wait.",
  access: "write",
  input: continueWithFeedbackInputSchema,
  run: async (input, { backend }) => {
    const result = await backend.api.studies.continueWithFeedback.mutate(input);
    return {
      data: result,
      text: `Queued ${result.trials.length} follow-up(s): ${result.trials.map((t) => `${t.id} (of ${t.parentTrialId})`).join(", ")}.`,
    };
  },
});
