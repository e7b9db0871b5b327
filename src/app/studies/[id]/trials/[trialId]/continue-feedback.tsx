"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { COMMENT_BODY_MAX } from "../../../../../shared/review-comment-schemas";
import type { ReviewSummaryView } from "../../../../../shared/review-schemas";
import { isTerminalTrialState } from "../../../../../shared/vocabulary";
import { buttonClass, ErrorMessage, focusRing, inputClass, smallButtonClass } from "../../../../_components/ui";
import { describeError } from "../../../../_lib/errors";
import { useTRPC } from "../../../../_lib/trpc";
import type { ReviewComments } from "./use-review-comments";

/**
 * Continue with feedback: this trial's unsent comments, and any text written here, go to its agent as the
 * prompt of a follow-up attempt (its conversation resumed in its workspace); the follow-up's review opens and
 * runs live. Admins, on a finished trial; a refusal says why (the server's message).
 */
export function ContinueWithFeedback({ summary, comments }: { summary: ReviewSummaryView; comments: ReviewComments }) {
  const [open, setOpen] = useState(false);
  const [feedback, setFeedback] = useState("");
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const send = useMutation(
    trpc.studies.continueWithFeedback.mutationOptions({
      onSuccess: (result) => {
        void queryClient.invalidateQueries(trpc.studies.get.queryFilter({ studyId: summary.studyId }));
        void queryClient.invalidateQueries(trpc.review.summary.queryFilter({ trialId: summary.trialId }));
        void comments.refresh();
        const child = result.trials[0];
        if (child) router.push(`/studies/${summary.studyId}/trials/${child.id}`);
      },
    }),
  );
  if (!comments.canWrite || !isTerminalTrialState(summary.state)) return null;
  if (!open)
    return (
      <button type="button" className={`${buttonClass} ${focusRing}`} onClick={() => setOpen(true)}>
        Continue with feedback{comments.unsent > 0 ? ` (${comments.unsent})` : ""}
      </button>
    );
  const text = feedback.trim();
  return (
    <form
      aria-label="Continue with feedback"
      className="grid w-full max-w-md gap-2 rounded-md border border-line bg-panel p-3 text-sm"
      onSubmit={(event) => {
        event.preventDefault();
        send.mutate({ studyId: summary.studyId, trialIds: [summary.trialId], ...(text ? { feedback: text } : {}) });
      }}
    >
      <p className="text-muted">
        {comments.unsent === 0
          ? "No unsent comments: write what the agent should change."
          : `${comments.unsent} unsent comment${comments.unsent === 1 ? "" : "s"} go to the agent`}
        {comments.unsent > 0 ? ", with anything you add here." : ""} It resumes its conversation in this trial&apos;s
        workspace; the same tests judge the follow-up.
      </p>
      <textarea
        className={`${inputClass} min-h-16 font-sans`}
        aria-label="More feedback (optional)"
        placeholder="More feedback (optional)"
        maxLength={COMMENT_BODY_MAX}
        value={feedback}
        onChange={(event) => setFeedback(event.target.value)}
      />
      {send.error ? <ErrorMessage>{describeError(send.error).message}</ErrorMessage> : null}
      <div className="flex flex-wrap gap-2">
        <button
          type="submit"
          className={smallButtonClass}
          disabled={send.isPending || (comments.unsent === 0 && !text)}
        >
          {send.isPending ? "Sending…" : "Send feedback"}
        </button>
        <button type="button" className={smallButtonClass} onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
