"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { ApplyRecordView } from "../../../shared/snapshot-schemas";
import { DataTable } from "../../_components/data-table";
import { QueryState } from "../../_components/query-state";
import {
  dangerBoxClass,
  dangerButtonClass,
  ErrorMessage,
  focusRing,
  Panel,
  secondaryButtonClass,
  warnBoxClass,
} from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { ConflictsTable } from "../../studies/[id]/apply-conflicts";
import { okBoxClass, RecordFiles } from "../../studies/[id]/apply-outcome";
import { formatDateTime } from "../../studies/study-format";
import { applyHistoryColumns } from "./apply-history-columns";

function UndoResult({ record }: { record: ApplyRecordView }) {
  if (record.outcome === "undone")
    return (
      <div role="status" data-testid="undo-outcome" data-outcome="undone" className={`mb-3 ${okBoxClass}`}>
        <p className="font-semibold">Undone: the project is back as it was before that apply.</p>
        <RecordFiles record={record} label="Files restored" />
      </div>
    );
  const refused = record.outcome === "refused";
  const these = record.conflicts.length === 1 ? "This file" : "These files";
  return (
    <div role="alert" data-testid="undo-outcome" data-outcome={record.outcome} className={`mb-3 ${dangerBoxClass}`}>
      <p className="font-semibold">
        {refused
          ? `Undo refused: nothing was written. ${these} changed since the apply, so restoring would lose those edits:`
          : `Undo ${record.outcome}: the project is as it was before the undo.`}
      </p>
      {refused ? <ConflictsTable conflicts={record.conflicts} label="Files changed since the apply" /> : null}
      {record.error ? <p className="mt-2 whitespace-pre-wrap">{record.error}</p> : null}
    </div>
  );
}

function ConfirmUndo({
  record,
  pending,
  onConfirm,
  onCancel,
}: {
  record: ApplyRecordView;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const files = record.files.length;
  return (
    <div role="group" aria-label="Confirm undo" className={`mb-3 ${warnBoxClass}`}>
      <p className="font-semibold">Undo the apply of {formatDateTime(record.createdAt)}?</p>
      <p className="mt-1">
        It puts back the {files} file{files === 1 ? "" : "s"} that apply changed, exactly as they were, all or nothing.
        If any of them changed since, the undo is refused and nothing is written.
      </p>
      <div className="mt-3 flex gap-3">
        <button type="button" className={`${dangerButtonClass} ${focusRing}`} onClick={onConfirm} disabled={pending}>
          {pending ? "Undoing…" : "Undo apply"}
        </button>
        <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onCancel} disabled={pending}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function useUndo(projectId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.applies.undo.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.applies.history.queryKey({ projectId }) }),
    }),
  );
}

/**
 * A project's apply history, newest first: who applied which trial when, the outcome and the files; admins can
 * undo the most recent apply (after a confirmation) while none of its files changed since.
 */
export function ApplyHistoryPanel({ projectId, isAdmin }: { projectId: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.applies.history.queryOptions({ projectId }));
  const undo = useUndo(projectId);
  const [confirming, setConfirming] = useState<ApplyRecordView | null>(null);
  const records = history.data;
  const columns = useMemo(
    () =>
      applyHistoryColumns({
        all: records ?? [],
        canUndo: isAdmin && !undo.isPending,
        onUndo: (record) => {
          undo.reset();
          setConfirming(record);
        },
      }),
    [records, isAdmin, undo],
  );
  return (
    <div id="apply-history" className="mb-6 scroll-mt-4">
      <Panel title="Apply history">
        {confirming ? (
          <ConfirmUndo
            record={confirming}
            pending={undo.isPending}
            onCancel={() => setConfirming(null)}
            onConfirm={() => undo.mutate({ recordId: confirming.id }, { onSettled: () => setConfirming(null) })}
          />
        ) : null}
        {undo.data ? <UndoResult record={undo.data} /> : null}
        {undo.error ? <ErrorMessage className="mb-3 text-sm">{describeError(undo.error).message}</ErrorMessage> : null}
        <QueryState
          query={history}
          loading="Loading the apply history…"
          errorPrefix="Could not load the apply history"
          compact
          isEmpty={(list) => list.length === 0}
          empty={
            <p className="text-sm text-muted" data-testid="apply-history-empty">
              Nothing applied yet. A study&apos;s trial can be applied to this project from its review or its panel on
              the study page (&quot;Apply to project…&quot;); each apply is listed here and the latest can be undone.
            </p>
          }
        >
          {(list) => (
            <DataTable
              label="Apply history"
              density="dense"
              className="min-w-[44rem]"
              wrapperClassName="overflow-x-auto"
              columns={columns}
              rows={list}
              rowKey={(record) => record.id}
              rowClassName="border-t border-line align-top"
              rowProps={(record) => ({
                "data-testid": "apply-record",
                "data-outcome": record.outcome,
                "data-undoable": record.undoable ? "true" : "false",
              })}
            />
          )}
        </QueryState>
      </Panel>
    </div>
  );
}
