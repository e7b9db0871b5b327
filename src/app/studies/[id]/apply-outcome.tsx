"use client";
import Link from "next/link";
import type { ApplyRecordView } from "../../../shared/snapshot-schemas";
import { dangerBoxClass, focusRing, warnBoxClass } from "../../_components/ui";
import { actionStyle, ConflictsTable, PatchDownload, type ApplySource } from "./apply-conflicts";

export const okBoxClass = "rounded-md border border-ok-strong/50 bg-ok-strong/10 p-3 text-sm";

/** The files an apply wrote (or would have), one line each with its action. */
export function RecordFiles({ record, label }: { record: ApplyRecordView; label: string }) {
  return (
    <ul aria-label={label} className="mt-2 max-h-48 overflow-auto font-mono text-xs">
      {record.files.map((file, index) => (
        <li key={`${file.path}:${index}`} className="[overflow-wrap:anywhere]">
          <span className={`inline-block w-14 font-sans ${actionStyle[file.action]}`}>{file.action}</span>
          {file.path}
        </li>
      ))}
    </ul>
  );
}

function Refused({ record, source }: { record: ApplyRecordView; source: ApplySource }) {
  const count = record.conflicts.length;
  const word = "trialId" in source ? "trial" : "session";
  return (
    <div role="alert" data-testid="apply-outcome" data-outcome="refused" className={dangerBoxClass}>
      <p className="font-semibold">Refused: nothing was written.</p>
      <p className="mt-1">
        {count === 1 ? "This file" : `These ${count} files`} changed in the project since the snapshot the {word}{" "}
        started from, so the plan no longer fits. Your edits are untouched.
      </p>
      <ConflictsTable conflicts={record.conflicts} label="Files changed since the snapshot" />
      <p className="mt-3 flex flex-wrap items-center gap-2">
        <span>To take the {word}&apos;s changes anyway, merge them by hand:</span>
        <PatchDownload source={source} />
      </p>
    </div>
  );
}

/** What an apply ended as: applied (with the files and where to undo), refused, rolled back or failed. */
export function ApplyOutcomeView({ record, source }: { record: ApplyRecordView; source: ApplySource }) {
  if (record.outcome === "refused") return <Refused record={record} source={source} />;
  if (record.outcome === "applied" || record.outcome === "undone")
    return (
      <div role="status" data-testid="apply-outcome" data-outcome={record.outcome} className={okBoxClass}>
        <p className="font-semibold text-ok-soft">
          Applied: {record.files.length} file{record.files.length === 1 ? "" : "s"} written to the project.
        </p>
        <RecordFiles record={record} label="Files applied" />
        <p className="mt-2 text-muted">
          Changed your mind? Undo puts back what it replaced while none of these files changes (the project page&apos;s{" "}
          <Link href={`/projects/${record.projectId}#apply-history`} className={`text-accent underline ${focusRing}`}>
            apply history
          </Link>{" "}
          and the {"trialId" in source ? "trial" : "session"}&apos;s &quot;applied · Undo&quot; can undo it later).
        </p>
        {record.error ? <p className="mt-2 text-warn-ink">{record.error}</p> : null}
      </div>
    );
  const rolledBack = record.outcome === "rolled-back";
  return (
    <div
      role="alert"
      data-testid="apply-outcome"
      data-outcome={record.outcome}
      className={rolledBack ? warnBoxClass : dangerBoxClass}
    >
      <p className="font-semibold">
        {rolledBack
          ? "Rolled back: the apply failed part-way and every step was undone; the project is as it was."
          : "Failed: the apply could not be carried out."}
      </p>
      {record.error ? <p className="mt-1 whitespace-pre-wrap">{record.error}</p> : null}
      <p className="mt-3 flex flex-wrap items-center gap-2">
        <span>The {"trialId" in source ? "trial" : "session"}&apos;s changes as a patch:</span>
        <PatchDownload source={source} />
      </p>
    </div>
  );
}
