"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { MAX_CHOICE_NOTE_CHARS } from "../../../shared/study-inputs";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { trialName } from "../../../shared/domain-names";
import {
  buttonClass,
  ErrorMessage,
  focusRing,
  inputClass,
  secondaryButtonClass,
  smallButtonClass,
} from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { AppliedUndo, useAppliedTrial } from "./applied-undo";
import { ApplyDialog } from "./apply-dialog";
import { BranchDialog } from "./branch-dialog";
import { ChoiceNote, ChosenBadge } from "./chosen-result";

/** studies.choose, storing the study it answers with as the page's data (and refreshing the list's markers). */
function useChoose(studyId: string, onDone: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.studies.choose.mutationOptions({
      onSuccess: (study) => {
        queryClient.setQueryData(trpc.studies.get.queryKey({ studyId }), study);
        void queryClient.invalidateQueries({ queryKey: trpc.studies.list.queryKey() });
        onDone();
      },
    }),
  );
}

function NoteForm({
  initial,
  submitLabel,
  pending,
  onSubmit,
  onCancel,
}: {
  initial: string;
  submitLabel: string;
  pending: boolean;
  onSubmit: (note: string) => void;
  onCancel: () => void;
}) {
  const [note, setNote] = useState(initial);
  const noteId = useId();
  return (
    <form
      aria-label="Choose this result"
      className="flex w-full max-w-xl flex-col gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(note);
      }}
    >
      <label className="text-xs text-muted" htmlFor={noteId}>
        Note (optional): why this one?
      </label>
      <textarea
        id={noteId}
        className={`${inputClass} min-h-16`}
        value={note}
        maxLength={MAX_CHOICE_NOTE_CHARS}
        placeholder="e.g. all tests pass and the diff is the smallest"
        onChange={(event) => setNote(event.target.value)}
      />
      <div className="flex gap-2">
        <button type="submit" className={`${buttonClass} ${focusRing}`} disabled={pending}>
          {pending ? "Saving…" : submitLabel}
        </button>
        <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Choose this trial as the study's result (with a note), or, when it is the chosen one, edit the note or clear it. */
function ChooseControls({ study, trial }: { study: StudyView; trial: TrialView }) {
  const [editing, setEditing] = useState(false);
  const choose = useChoose(study.id, () => setEditing(false));
  const chosen = study.chosen;
  const isChosen = chosen?.trialId === trial.id;
  const submit = (note: string) => choose.mutate({ studyId: study.id, trialId: trial.id, note });
  const other = chosen && !isChosen ? study.trials.find((candidate) => candidate.id === chosen.trialId) : undefined;
  let body;
  if (editing)
    body = (
      <NoteForm
        initial={isChosen ? (chosen.note ?? "") : ""}
        submitLabel={isChosen ? "Save note" : "Choose"}
        pending={choose.isPending}
        onSubmit={submit}
        onCancel={() => setEditing(false)}
      />
    );
  else if (isChosen)
    body = (
      <>
        <button type="button" className={smallButtonClass} onClick={() => setEditing(true)}>
          Edit note
        </button>
        <button
          type="button"
          className={smallButtonClass}
          disabled={choose.isPending}
          onClick={() => choose.mutate({ studyId: study.id, trialId: null })}
        >
          Clear choice
        </button>
      </>
    );
  else
    body = (
      <button
        type="button"
        className={`${secondaryButtonClass} ${focusRing}`}
        onClick={() => setEditing(true)}
        title={other ? `Replaces trial ${other.choice}.${other.repeat} as the chosen result` : undefined}
      >
        {other ? "Choose this result instead" : "Choose this result"}
      </button>
    );
  return (
    <>
      {body}
      {choose.error ? (
        <ErrorMessage className="w-full text-sm">{describeError(choose.error).message}</ErrorMessage>
      ) : null}
    </>
  );
}

/** The trial is the chosen result: the badge and its note (everyone sees this). */
function ChosenLine({ study }: { study: StudyView }) {
  if (!study.chosen) return null;
  return (
    <p className="flex w-full flex-wrap items-baseline gap-2 text-sm" data-testid="trial-chosen">
      <ChosenBadge label="chosen result" />
      <span>
        <ChoiceNote choice={study.chosen} />
      </span>
    </p>
  );
}

/**
 * How a finished trial's changes reach the project: "Apply to project…" (secondary: reviewing comes first;
 * smaller beside "Applied on … Undo" while its latest apply is in place, where the dialog says the same),
 * or "No changes" when the agent changed nothing.
 */
function ApplyControl({
  studyId,
  trial,
  sayNoChanges,
  onApply,
  onBranch,
}: {
  studyId: string;
  trial: TrialView;
  /** Where nothing else on the page says it (the review page's header does). */
  sayNoChanges: boolean;
  onApply: () => void;
  /** Opens Apply as a branch. */
  onBranch: () => void;
}) {
  const { isAdmin } = useRole();
  const applied = useAppliedTrial(studyId, trial.id);
  if (trial.diff?.files === 0)
    return sayNoChanges ? (
      <span className="text-sm text-muted" data-testid="trial-no-changes">
        No changes
      </span>
    ) : null;
  return (
    <>
      {applied.data ? <AppliedUndo applied={applied.data} /> : null}
      {isAdmin ? (
        <button
          type="button"
          className={applied.data ? smallButtonClass : `${secondaryButtonClass} ${focusRing}`}
          onClick={onApply}
        >
          Apply to project…
        </button>
      ) : null}
      {isAdmin ? (
        <button type="button" className={smallButtonClass} onClick={onBranch}>
          Apply as a branch…
        </button>
      ) : null}
    </>
  );
}

/**
 * Keeping a trial's result: "Review changes" (the primary action, where the page is not the review
 * itself: `reviewHref`), "Choose this result" (with a note; change or clear it) and "Apply to project…",
 * which opens the reviewed plan, or "applied · Undo". Choosing and applying are an admin's; a viewer sees
 * whether this trial is the chosen one and whether it is applied. Used on the study page's trial panel and
 * in the review page's header.
 */
export function KeepResultActions({
  studyId,
  trialId,
  reviewHref,
}: {
  studyId: string;
  trialId: string;
  reviewHref?: string;
}) {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const study = useQuery(trpc.studies.get.queryOptions({ studyId }));
  const applied = useAppliedTrial(studyId, trialId);
  const [applying, setApplying] = useState(false);
  const [branching, setBranching] = useState(false);
  const trial = study.data?.trials.find((candidate) => candidate.id === trialId);
  if (!study.data || !trial) return null;
  const isChosen = study.data.chosen?.trialId === trialId;
  const finished = isTerminalTrialState(trial.state);
  const review = reviewHref && trial.workspaceId && trial.diff?.files !== 0;
  if (!isAdmin && !isChosen && !applied.data && !review) return null;
  return (
    <div
      role="group"
      aria-label="Keep this result"
      data-testid="keep-result-actions"
      className="flex flex-wrap items-center gap-2"
    >
      {review ? (
        <Link href={reviewHref} className={`${buttonClass} ${focusRing}`} data-testid="trial-review-primary">
          Review changes
        </Link>
      ) : null}
      {isChosen ? <ChosenLine study={study.data} /> : null}
      {isAdmin && finished ? <ChooseControls study={study.data} trial={trial} /> : null}
      {finished && trial.workspaceId && (isAdmin || applied.data) ? (
        <ApplyControl
          studyId={studyId}
          trial={trial}
          sayNoChanges={reviewHref !== undefined}
          onApply={() => setApplying(true)}
          onBranch={() => setBranching(true)}
        />
      ) : null}
      {isAdmin && !finished ? (
        <p className="text-xs text-muted">Choose or apply this result once the trial has finished.</p>
      ) : null}
      {applying ? (
        <ApplyDialog
          source={{ trialId }}
          title={`Apply trial ${trial.choice}.${trial.repeat} to ${study.data.projectName}`}
          subtitle="Copies the trial's changes into the project directory, after checking that none of those files changed since the snapshot."
          onClose={() => setApplying(false)}
        />
      ) : null}
      {branching ? (
        <BranchDialog
          trialId={trialId}
          projectId={study.data.projectId}
          title={`Apply ${trialName(trial)} as a branch`}
          onClose={() => setBranching(false)}
        />
      ) : null}
    </div>
  );
}
