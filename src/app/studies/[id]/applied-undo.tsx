"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import type { AppliedTrialView, ApplyRecordView } from "../../../shared/snapshot-schemas";
import { ErrorMessage, focusRing, smallButtonClass } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { formatDateTime } from "../study-format";

/** The study's trials whose latest apply is still in place; one trial's entry with `trialId`. */
export function useAppliedTrial(studyId: string, trialId: string) {
  const trpc = useTRPC();
  return useQuery(
    trpc.applies.appliedTrials.queryOptions(
      { studyId },
      { select: (applied) => applied.find((entry) => entry.trialId === trialId) ?? null },
    ),
  );
}

/** applies.undo; every applies query (applied trials, previews, history) is read again after it. */
export function useUndoApply(onUndone?: (record: ApplyRecordView) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.applies.undo.mutationOptions({
      onSuccess: (record) => {
        if (record.outcome === "undone") onUndone?.(record);
      },
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.applies.pathKey() }),
    }),
  );
}

/** What an undo attempt ended as, in one line (refused: which files changed since the apply). */
export function UndoResultLine({ record }: { record: ApplyRecordView }) {
  if (record.outcome === "undone")
    return (
      <p role="status" className="text-xs text-ok-soft" data-testid="undo-outcome" data-outcome="undone">
        Undone: the project is back as it was before the apply.
      </p>
    );
  const paths = record.conflicts.map((conflict) => conflict.path).join(", ");
  return (
    <p role="alert" className="text-xs text-danger-soft" data-testid="undo-outcome" data-outcome={record.outcome}>
      Undo {record.outcome}: nothing was written.{" "}
      {paths ? `${paths} changed since the apply; undo your edits to them first.` : (record.error ?? "")}
    </p>
  );
}

const notUndoable =
  "A later apply to this project changed it since; undo that one first (project page, apply history).";

/**
 * "applied · Undo" (`compact`, for a trial row) or "Applied on <date> by <who>" with an Undo button:
 * a trial whose latest apply is still in place. Undo is an admin's; a viewer sees the state only.
 */
export function AppliedUndo({
  applied,
  compact = false,
  onUndone,
}: {
  applied: AppliedTrialView;
  compact?: boolean;
  onUndone?: (record: ApplyRecordView) => void;
}) {
  const { isAdmin } = useRole();
  const undo = useUndoApply(onUndone);
  const when = `Applied on ${formatDateTime(applied.appliedAt)} by ${applied.appliedBy}`;
  const button =
    isAdmin && (applied.undoable || !compact) ? (
      <button
        type="button"
        className={`${smallButtonClass} ${focusRing}`}
        disabled={undo.isPending || !applied.undoable}
        title={applied.undoable ? `Undo: put back the ${applied.files} file(s) it replaced` : notUndoable}
        onClick={(event) => {
          event.stopPropagation(); // a trial row opens the trial on click
          undo.mutate({ recordId: applied.recordId });
        }}
      >
        {undo.isPending ? "Undoing…" : "Undo"}
      </button>
    ) : null;
  return (
    <span
      data-testid="trial-applied"
      data-undoable={applied.undoable ? "true" : "false"}
      className={compact ? "ml-1 inline-flex items-center gap-1 text-xs" : "flex flex-wrap items-center gap-2 text-sm"}
    >
      <span className="font-medium text-ok-soft" title={compact ? when : undefined}>
        {compact ? "applied" : `${when}.`}
      </span>
      {button ? (
        <>
          {compact ? <span className="text-muted">·</span> : null}
          {button}
        </>
      ) : null}
      {!compact && !applied.undoable ? <span className="text-xs text-muted">{notUndoable}</span> : null}
      {undo.data ? <UndoResultLine record={undo.data} /> : null}
      {undo.error ? <ErrorMessage className="text-xs">{describeError(undo.error).message}</ErrorMessage> : null}
    </span>
  );
}

/** A trial row's "applied · Undo" marker; it reads the study's applied trials itself (one query per page). */
export function AppliedTrialMarker({ trialId }: { trialId: string }) {
  const { id: studyId } = useParams<{ id: string }>();
  const applied = useAppliedTrial(studyId, trialId);
  if (!applied.data) return null;
  return <AppliedUndo applied={applied.data} compact />;
}
