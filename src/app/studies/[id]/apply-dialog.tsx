"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type ReactNode, type SyntheticEvent } from "react";
import type { AppliedTrialView, ApplyPreviewView, ApplyRecordView } from "../../../shared/snapshot-schemas";
import { QueryState } from "../../_components/query-state";
import {
  buttonClass,
  ErrorMessage,
  focusRing,
  secondaryButtonClass,
  smallButtonClass,
  Spinner,
  warnBoxClass,
} from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { ConflictsTable, PatchDownload, type ApplySource } from "./apply-conflicts";
import { AppliedUndo, UndoResultLine, useUndoApply } from "./applied-undo";
import { ApplyOutcomeView, okBoxClass } from "./apply-outcome";
import { PlanSteps } from "./apply-plan";

/**
 * The plan of applying a trial or a session's private copy (recomputed each time the dialog opens) and the
 * run that confirms it by hash.
 */
function useApply(source: ApplySource) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const trialId = "trialId" in source ? source.trialId : null;
  const workspaceId = "workspaceId" in source ? source.workspaceId : null;
  const fresh = { staleTime: 0, gcTime: 0, retry: false } as const;
  const trialPreview = useQuery(
    trpc.applies.previewTrial.queryOptions({ trialId: trialId ?? "" }, { ...fresh, enabled: trialId !== null }),
  );
  const workspacePreview = useQuery(
    trpc.applies.preview.queryOptions({ workspaceId: workspaceId ?? "" }, { ...fresh, enabled: workspaceId !== null }),
  );
  // the history, the study's applied trials ("applied · Undo") and this preview
  const onSettled = () => queryClient.invalidateQueries({ queryKey: trpc.applies.pathKey() });
  const trialRun = useMutation(trpc.applies.runTrial.mutationOptions({ onSettled }));
  const workspaceRun = useMutation(trpc.applies.run.mutationOptions({ onSettled }));
  const confirm = (planHash: string) => {
    if (trialId !== null) trialRun.mutate({ trialId, planHash });
    else if (workspaceId !== null) workspaceRun.mutate({ workspaceId, planHash });
  };
  return trialId !== null
    ? { preview: trialPreview, run: trialRun, confirm }
    : { preview: workspacePreview, run: workspaceRun, confirm };
}

function PlanReview({
  preview,
  source,
  checking,
  onRecheck,
  onConfirm,
  onUndone,
}: {
  preview: ApplyPreviewView;
  source: ApplySource;
  checking: boolean;
  onRecheck: () => void;
  onConfirm: () => void;
  onUndone: (record: ApplyRecordView) => void;
}) {
  if (preview.applied) return <AppliedReview applied={preview.applied} onUndone={onUndone} />;
  const conflicted = preview.conflicts.length > 0;
  const empty = preview.steps.length === 0;
  return (
    <>
      {conflicted ? (
        <div role="alert" className={`mb-3 ${warnBoxClass}`} data-testid="plan-conflicts">
          <p className="font-semibold">
            This plan conflicts with the project as it is now: applying it would be refused and nothing written.
          </p>
          <p className="mt-1">
            Undo or commit your edits to these files and check again, or merge the{" "}
            {"trialId" in source ? "trial" : "session"}&apos;s changes by hand.
          </p>
          <ConflictsTable conflicts={preview.conflicts} steps={preview.steps} />
          <p className="mt-3">
            <PatchDownload source={source} />
          </p>
        </div>
      ) : null}
      <PlanSteps preview={preview} />
      <p className="mt-3 text-xs text-muted">
        All or nothing: if any file changed since this plan was made, nothing is written. Plan{" "}
        <code className="font-mono" title={preview.planHash}>
          {preview.planHash.slice(0, 12)}
        </code>
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <button
          type="button"
          className={`${buttonClass} ${focusRing}`}
          onClick={onConfirm}
          disabled={conflicted || empty || checking}
        >
          Apply {preview.steps.length} change{preview.steps.length === 1 ? "" : "s"}
        </button>
        <button
          type="button"
          className={`${secondaryButtonClass} ${focusRing}`}
          onClick={onRecheck}
          disabled={checking}
        >
          {checking ? "Checking…" : "Check again"}
        </button>
      </div>
    </>
  );
}

/** The latest apply is in place: the plan's "conflicts" would be that apply's own files, so offer Undo. */
function AppliedReview({
  applied,
  onUndone,
}: {
  applied: AppliedTrialView;
  onUndone: (record: ApplyRecordView) => void;
}) {
  return (
    <div role="status" className={okBoxClass} data-testid="plan-applied">
      <p className="mb-2 font-semibold text-ok-soft">
        {applied.trialId ? "This trial" : "This session"} is applied: its {applied.files} file
        {applied.files === 1 ? " is" : "s are"} in the project as the apply left {applied.files === 1 ? "it" : "them"}.
      </p>
      <AppliedUndo applied={applied} onUndone={onUndone} />
    </div>
  );
}

function Applying({ files }: { files: number }) {
  return (
    <div role="status" aria-label="Applying" className="space-y-2">
      <p className="flex items-center gap-2 text-sm">
        <Spinner /> Applying {files} file{files === 1 ? "" : "s"}: staging them, re-checking each against the plan, then
        putting them in place all at once…
      </p>
      <div className="h-2 overflow-hidden rounded bg-line">
        <div className="h-full w-1/3 animate-pulse bg-accent" />
      </div>
    </div>
  );
}

function ApplyBody({
  source,
  applied,
  onClose,
  apply: { preview, run, confirm },
}: {
  source: ApplySource;
  applied: AppliedTrialView | null;
  onClose: () => void;
  apply: ReturnType<typeof useApply>;
}) {
  const [undone, setUndone] = useState<ApplyRecordView | null>(null);
  if (run.data)
    return (
      <>
        <ApplyOutcomeView record={run.data} source={source} />
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <button type="button" className={`${buttonClass} ${focusRing}`} onClick={onClose}>
            Done
          </button>
          {run.data.outcome === "applied" ? <UndoAppliedRecord record={run.data} /> : null}
        </div>
      </>
    );
  if (run.isPending) return <Applying files={preview.data?.steps.length ?? 0} />;
  return (
    <QueryState
      query={preview}
      loading={`Working out the plan: comparing the ${"trialId" in source ? "trial" : "session"}'s workspace with the project…`}
      compact
    >
      {(data) => (
        <>
          {run.error ? (
            <ErrorMessage className="mb-3 text-sm">Could not apply: {describeError(run.error).message}</ErrorMessage>
          ) : null}
          {undone && !data.applied ? (
            <div className={`mb-3 ${okBoxClass}`}>
              <UndoResultLine record={undone} />
            </div>
          ) : null}
          <PlanReview
            preview={applied && !data.applied ? { ...data, applied } : data}
            source={source}
            checking={preview.isFetching}
            onRecheck={() => void preview.refetch()}
            onConfirm={() => confirm(data.planHash)}
            onUndone={setUndone}
          />
        </>
      )}
    </QueryState>
  );
}

/** The success message's Undo: the apply just made is the project's latest, so it can be undone at once. */
function UndoAppliedRecord({ record }: { record: ApplyRecordView }) {
  const undo = useUndoApply();
  if (undo.data) return <UndoResultLine record={undo.data} />;
  return (
    <>
      <button
        type="button"
        className={`${secondaryButtonClass} ${focusRing}`}
        disabled={undo.isPending}
        onClick={() => undo.mutate({ recordId: record.id })}
      >
        {undo.isPending ? "Undoing…" : "Undo"}
      </button>
      {undo.error ? <ErrorMessage className="text-sm">{describeError(undo.error).message}</ErrorMessage> : null}
    </>
  );
}

/**
 * "Apply to project…": a modal dialog with the plan (steps, totals, conflicts), a confirmation by plan hash,
 * progress and the outcome. Esc or Close dismiss it, except while the apply runs.
 */
export function ApplyDialog({
  source,
  applied = null,
  title,
  subtitle,
  onClose,
}: {
  source: ApplySource;
  /** Its latest apply, in place (a trial's preview says so itself; a session's page reads it from the history). */
  applied?: AppliedTrialView | null;
  title: string;
  subtitle?: ReactNode;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const apply = useApply(source);
  const busy = apply.run.isPending;
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const onCancel = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!busy) onClose();
  };
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onCancel={onCancel}
      className="m-auto max-h-[90vh] w-[min(60rem,calc(100vw-2rem))] overflow-auto rounded-xl border border-line bg-panel p-5 text-ink backdrop:bg-canvas/80"
    >
      <div className="mb-4 flex items-start justify-between gap-4">
        <div>
          <h2 className="text-lg font-semibold">{title}</h2>
          {subtitle ? <p className="mt-0.5 text-sm text-muted">{subtitle}</p> : null}
        </div>
        <button type="button" className={smallButtonClass} onClick={onClose} disabled={busy}>
          Close
        </button>
      </div>
      <ApplyBody source={source} applied={applied} onClose={onClose} apply={apply} />
    </dialog>
  );
}
