"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { COMMENT_BODY_MAX } from "../../../shared/review-comment-schemas";
import type { TrialView } from "../../../shared/study-schemas";
import { RETRYABLE_TRIAL_STATES, TERMINAL_TRIAL_STATES } from "../../../shared/vocabulary";
import { buttonClass, ErrorMessage, focusRing, inputClass, secondaryButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

/**
 * Which trials an admin ticked: retryable ones (Retry selected) and finished ones (Send feedback, a follow-up
 * of each); ticks of trials that no longer qualify do not count.
 */
export function useTrialSelection(trials: readonly TrialView[], can: { retry: boolean; feedback: boolean }) {
  const [checkedIds, setCheckedIds] = useState<ReadonlySet<string>>(() => new Set());
  const retryable = useMemo(
    () =>
      new Set(
        can.retry
          ? trials.filter((trial) => RETRYABLE_TRIAL_STATES.includes(trial.state)).map((trial) => trial.id)
          : [],
      ),
    [trials, can.retry],
  );
  const finished = useMemo(
    () =>
      new Set(
        can.feedback
          ? trials.filter((trial) => TERMINAL_TRIAL_STATES.includes(trial.state)).map((trial) => trial.id)
          : [],
      ),
    [trials, can.feedback],
  );
  const onCheck = useCallback((trialId: string, checked: boolean) => {
    setCheckedIds((current) => {
      const next = new Set(current);
      if (checked) next.add(trialId);
      else next.delete(trialId);
      return next;
    });
  }, []);
  const selectable = useMemo(() => new Set([...retryable, ...finished]), [retryable, finished]);
  return {
    checkedIds,
    retryable,
    selectable,
    selectedRetryable: [...checkedIds].filter((id) => retryable.has(id)),
    selectedFinished: [...checkedIds].filter((id) => finished.has(id)),
    onCheck,
    selectAllRetryable: () => setCheckedIds(new Set(retryable)),
    clear: () => setCheckedIds(new Set()),
  };
}

export type TrialSelection = ReturnType<typeof useTrialSelection>;

/** Above the table: Retry selected, Select all retryable, and Send feedback to N trials (one text for all). */
export function SelectionBar({
  studyId,
  selection,
  retrying,
  onRetry,
}: {
  studyId: string;
  selection: TrialSelection;
  retrying: boolean;
  onRetry: (trialIds: string[]) => void;
}) {
  const retryCount = selection.selectedRetryable.length;
  return (
    <div className="mb-3 grid gap-2">
      <div className="flex flex-wrap items-center gap-3">
        {selection.retryable.size > 0 ? (
          <>
            <button
              type="button"
              className={`${buttonClass} ${focusRing}`}
              disabled={retryCount === 0 || retrying}
              onClick={() => {
                onRetry(selection.selectedRetryable);
                selection.clear();
              }}
            >
              {retrying ? "Retrying…" : `Retry selected${retryCount > 0 ? ` (${retryCount})` : ""}`}
            </button>
            <button
              type="button"
              className={`text-xs text-accent underline ${focusRing}`}
              onClick={selection.selectAllRetryable}
            >
              Select all retryable ({selection.retryable.size})
            </button>
          </>
        ) : (
          <span className="text-xs text-muted">Tick finished trials to send them the same feedback.</span>
        )}
      </div>
      {selection.selectedFinished.length > 0 ? (
        <FeedbackForm studyId={studyId} trialIds={selection.selectedFinished} onSent={selection.clear} />
      ) : null}
    </div>
  );
}

/**
 * Send feedback to N trials: each selected trial's unsent review comments and this text become the prompt of
 * a follow-up of it, in one call (all or nothing: a refusal names the trial and queues none).
 */
function FeedbackForm({ studyId, trialIds, onSent }: { studyId: string; trialIds: string[]; onSent: () => void }) {
  const [feedback, setFeedback] = useState("");
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const send = useMutation(
    trpc.studies.continueWithFeedback.mutationOptions({
      onSuccess: () => {
        setFeedback("");
        onSent();
        void queryClient.invalidateQueries(trpc.studies.get.queryFilter({ studyId }));
      },
    }),
  );
  const text = feedback.trim();
  const count = trialIds.length;
  const action = `Send feedback to ${count} trial${count === 1 ? "" : "s"}`;
  return (
    <form
      aria-label="Send feedback to the selected trials"
      className="grid max-w-2xl gap-2 rounded-md border border-line p-3"
      onSubmit={(event) => {
        event.preventDefault();
        send.mutate({ studyId, trialIds, ...(text ? { feedback: text } : {}) });
      }}
    >
      <textarea
        className={`${inputClass} min-h-16 font-sans`}
        aria-label="Feedback for the selected trials"
        placeholder="The same feedback for each selected trial (its unsent review comments go too)"
        maxLength={COMMENT_BODY_MAX}
        value={feedback}
        onChange={(event) => setFeedback(event.target.value)}
      />
      {send.error ? <ErrorMessage>{describeError(send.error).message}</ErrorMessage> : null}
      <div>
        <button type="submit" className={`${secondaryButtonClass} ${focusRing}`} disabled={send.isPending}>
          {send.isPending ? "Sending…" : action}
        </button>
      </div>
    </form>
  );
}
