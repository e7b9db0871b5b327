import { z } from "zod";

/**
 * Review comments on a trial (on a line, a range, or the whole trial) and sending them back to the
 * agent as a follow-up attempt (tRPC `review.comments` / `review.addComment` / `review.removeComment`,
 * `studies.continueWithFeedback`, the CLI's `trial comment` / `trial follow-up`). Shared by server and browser.
 */
export const COMMENT_BODY_MAX = 4000;
export const FOLLOW_UP_TRIALS_MAX = 50;

const trialId = z.string().min(1, "Choose a trial.").max(100);
const line = z.int("A line is a whole number.").min(1, "Lines count from 1.").max(10_000_000);

/** A comment's text: trimmed, 1..4000 characters. */
export const commentBodySchema = z
  .string()
  .trim()
  .min(1, "Write a comment.")
  .max(COMMENT_BODY_MAX, `A comment has at most ${COMMENT_BODY_MAX} characters.`);

/**
 * A path as the review shows it, relative to the workspace root; the server checks it names a file of the
 * trial's changes or its snapshot. Refused here: absolute paths, `..`, backslashes, empty parts.
 */
export const commentPathSchema = z
  .string()
  .min(1, "Name the file, or leave the path out to comment on the whole trial.")
  .max(4096)
  .refine((path) => !path.startsWith("/"), "The path is relative to the workspace root (no leading /).")
  .refine((path) => !path.includes("\\") && !path.includes("\0"), "The path has a backslash or a NUL byte.")
  .refine(
    (path) => path.split("/").every((part) => part !== "" && part !== "." && part !== ".."),
    "The path may not contain '..', '.' or empty parts.",
  );

export const reviewCommentsInputSchema = z.strictObject({ trialId });

export const addCommentInputSchema = z
  .strictObject({
    trialId,
    body: commentBodySchema,
    path: commentPathSchema.nullable().optional(),
    startLine: line.nullable().optional(),
    endLine: line.nullable().optional(),
  })
  .superRefine((input, context) => {
    const hasLines = input.startLine != null || input.endLine != null;
    if (hasLines && input.path == null)
      context.addIssue({ code: "custom", path: ["path"], message: "A comment on lines needs the file's path." });
    if (input.endLine != null && input.startLine == null)
      context.addIssue({ code: "custom", path: ["startLine"], message: "Give the first line of the range too." });
    if (input.startLine != null && input.endLine != null && input.endLine < input.startLine)
      context.addIssue({
        code: "custom",
        path: ["endLine"],
        message: "The range's last line comes before its first line.",
      });
  });
export type AddCommentInput = z.input<typeof addCommentInputSchema>;

export const removeCommentInputSchema = z.strictObject({ commentId: z.string().min(1, "Choose a comment.").max(100) });

export const continueWithFeedbackInputSchema = z.strictObject({
  studyId: z.string().min(1, "Choose a study.").max(100),
  trialIds: z
    .array(trialId)
    .min(1, "Choose at least one trial to continue.")
    .max(FOLLOW_UP_TRIALS_MAX, `Continue at most ${FOLLOW_UP_TRIALS_MAX} trials at once.`)
    .refine((ids) => new Set(ids).size === ids.length, "A trial is listed twice."),
  /** Feedback for every listed trial, sent as a whole-trial comment beside each one's own comments. */
  feedback: commentBodySchema.optional(),
});
export type ContinueWithFeedbackInput = z.input<typeof continueWithFeedbackInputSchema>;

export interface ReviewCommentView {
  id: string;
  trialId: string;
  /** Relative to the workspace root; null: about the whole trial. */
  path: string | null;
  startLine: number | null;
  endLine: number | null;
  body: string;
  /** Who wrote it: "admin", or a viewer link's name. */
  author: string;
  createdAt: string;
  /** The follow-up trial that carried it to the agent; null: not sent yet. */
  sentInTrial: string | null;
}

export interface ContinueWithFeedbackResult {
  trials: { id: string; parentTrialId: string }[];
}

/** Where a comment points, as the prompt names it: "src/a.ts:3-5", "src/a.ts:3", "src/a.ts"; null for the whole trial. */
export function commentPlace(comment: Pick<ReviewCommentView, "path" | "startLine" | "endLine">): string | null {
  if (comment.path === null) return null;
  if (comment.startLine === null) return comment.path;
  const end = comment.endLine ?? comment.startLine;
  return end === comment.startLine
    ? `${comment.path}:${comment.startLine}`
    : `${comment.path}:${comment.startLine}-${end}`;
}

/**
 * The follow-up's prompt: what the reviewer said about the agent's work, each comment on a line or range as
 * "path:lines — body", the whole-trial ones plainly, oldest first.
 */
export function feedbackPrompt(
  comments: readonly Pick<ReviewCommentView, "path" | "startLine" | "endLine" | "body">[],
) {
  const lines = comments.map((comment) => {
    const place = commentPlace(comment);
    return place ? `- ${place} — ${comment.body}` : `- ${comment.body}`;
  });
  return [
    "A reviewer read the changes you made in /workspace and left this feedback. Address each point, keep the rest of your work, and run the tests again.",
    "",
    ...lines,
  ].join("\n");
}
