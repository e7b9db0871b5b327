"use client";
import Link from "next/link";
import type { ApplyOutcome, ApplyRecordView } from "../../../shared/snapshot-schemas";
import type { Column } from "../../_components/data-table";
import { focusRing, smallButtonClass } from "../../_components/ui";
import { ConflictsTable } from "../../studies/[id]/apply-conflicts";
import { RecordFiles } from "../../studies/[id]/apply-outcome";
import { formatDateTime } from "../../studies/study-format";

const outcomeStyle: Record<ApplyOutcome, string> = {
  applied: "border-ok-strong/50 text-ok-soft",
  undone: "border-info-strong/50 text-info-soft",
  refused: "border-warn-strong/50 text-warn-soft",
  "rolled-back": "border-warn-strong/50 text-warn-soft",
  failed: "border-danger-strong/60 text-danger-soft",
};

function OutcomeBadge({ record }: { record: ApplyRecordView }) {
  return (
    <span className="whitespace-nowrap">
      <span className={`inline-block rounded-full border px-2 py-0.5 text-xs ${outcomeStyle[record.outcome]}`}>
        {record.outcome}
      </span>
      {record.undoneBy ? <span className="ml-1 text-xs text-muted">(undone)</span> : null}
    </span>
  );
}

/** The trial an apply took its changes from, linked to its review page. */
function TrialLink({ record }: { record: ApplyRecordView }) {
  if (!record.trialId)
    return <span className="font-mono text-xs text-muted">{record.workspaceId ?? "a workspace"}</span>;
  if (!record.studyId) return <span className="text-muted">trial {record.trialId} (its study was deleted)</span>;
  return (
    <span>
      <Link
        href={`/studies/${record.studyId}/trials/${record.trialId}`}
        className={`text-accent hover:underline ${focusRing}`}
      >
        {record.configurationLabel ?? `trial ${record.trialId}`}
      </Link>
      <span className="block text-xs text-muted">{record.studyTitle}</span>
    </span>
  );
}

/** What a record is: an apply of a trial, or an undo of an earlier apply (named by its trial and time). */
function RecordSubject({ record, all }: { record: ApplyRecordView; all: readonly ApplyRecordView[] }) {
  if (!record.undoOf) return <TrialLink record={record} />;
  const original = all.find((candidate) => candidate.id === record.undoOf);
  return (
    <span>
      <span className="text-xs text-muted">
        Undo of the apply of {original ? formatDateTime(original.createdAt) : "?"}
      </span>
      {original ? (
        <span className="block">
          <TrialLink record={original} />
        </span>
      ) : null}
    </span>
  );
}

function RecordDetails({ record }: { record: ApplyRecordView }) {
  const files = record.files.length;
  const conflicts = record.conflicts.length;
  if (files === 0 && conflicts === 0 && !record.error) return <span className="text-muted">—</span>;
  const summary = [
    files > 0 ? `${files} file${files === 1 ? "" : "s"}` : null,
    conflicts > 0 ? `${conflicts} conflict${conflicts === 1 ? "" : "s"}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <details className="max-w-xl">
      <summary className={`cursor-pointer text-xs ${focusRing}`}>{summary || "details"}</summary>
      {files > 0 ? <RecordFiles record={record} label="Files" /> : null}
      {conflicts > 0 ? <ConflictsTable conflicts={record.conflicts} /> : null}
      {record.error ? <p className="mt-2 whitespace-pre-wrap text-xs text-danger">{record.error}</p> : null}
    </details>
  );
}

/** Columns of the apply history: when, who, which trial, outcome, files (expandable) and Undo. */
export function applyHistoryColumns(options: {
  all: readonly ApplyRecordView[];
  canUndo: boolean;
  onUndo: (record: ApplyRecordView) => void;
}): Column<ApplyRecordView>[] {
  return [
    {
      key: "when",
      header: "When",
      className: "whitespace-nowrap text-xs text-muted",
      cell: (record) => formatDateTime(record.createdAt),
    },
    { key: "who", header: "Who", className: "text-xs", cell: (record) => record.appliedBy },
    { key: "what", header: "Trial", cell: (record) => <RecordSubject record={record} all={options.all} /> },
    { key: "outcome", header: "Outcome", cell: (record) => <OutcomeBadge record={record} /> },
    { key: "files", header: "Files", cell: (record) => <RecordDetails record={record} /> },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      cell: (record) =>
        options.canUndo && record.undoable ? (
          <button type="button" className={smallButtonClass} onClick={() => options.onUndo(record)}>
            Undo…
          </button>
        ) : null,
    },
  ];
}
