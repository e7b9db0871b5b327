"use client";
import Link from "next/link";
import { useDeferredValue, useMemo, useState } from "react";
import type { CompareTrialView, CompareView } from "../../../../shared/review-schemas";
import { focusRing, inputClass } from "../../../_components/ui";
import { TrialStateBadge } from "../../state-badge";
import { formatCount, formatSeconds, formatVerdict } from "../../study-format";
import { ChangeKindBadge, changeKindWord } from "../_review/change-kind";

type MatrixFile = CompareView["files"][number];

/**
 * Files × trials: which trial changed which file (with the kind of change), each trial's verdict, tokens
 * and seconds in its column header. A file name opens its diff between the chosen sides; a cell opens it
 * with that trial on the right.
 */
export function CompareMatrix({
  compare,
  selectedFile,
  onOpen,
}: {
  compare: CompareView;
  selectedFile: string | null;
  onOpen: (pathKey: string, rightTrialId?: string) => void;
}) {
  const [filter, setFilter] = useState("");
  const deferred = useDeferredValue(filter.trim().toLowerCase());
  const files = useMemo(
    () => (deferred ? compare.files.filter((file) => file.path.toLowerCase().includes(deferred)) : compare.files),
    [compare.files, deferred],
  );
  return (
    <section aria-label="Changed files by trial" className="rounded-lg border border-line bg-panel">
      <div className="flex flex-wrap items-center gap-3 border-b border-line p-3">
        <h2 className="text-sm font-semibold uppercase tracking-wide text-muted">Changed files</h2>
        <div className="w-64">
          <input
            type="search"
            aria-label="Filter files"
            placeholder="Filter files…"
            className={`${inputClass} py-1.5`}
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
          />
        </div>
        <span className="text-xs text-muted">
          {deferred ? `${files.length} of ` : ""}
          {compare.files.length} file{compare.files.length === 1 ? "" : "s"} changed by any of {compare.trials.length}{" "}
          trials
        </span>
      </div>
      <div className="max-h-[40vh] overflow-auto">
        <table className="w-full text-left text-sm" aria-label="Compare matrix">
          <thead className="sticky top-0 z-10 bg-panel text-xs text-muted">
            <tr>
              <th className="px-3 py-2 font-normal uppercase">File</th>
              {compare.trials.map((trial) => (
                <TrialHeader key={trial.trialId} studyId={compare.studyId} trial={trial} />
              ))}
            </tr>
          </thead>
          <tbody>
            {files.map((file) => (
              <MatrixRow
                key={file.pathKey}
                file={file}
                trials={compare.trials}
                selected={file.pathKey === selectedFile}
                onOpen={onOpen}
              />
            ))}
          </tbody>
        </table>
        {files.length === 0 ? (
          <p className="p-3 text-sm text-muted">
            {compare.files.length === 0 ? "None of these trials changed any file." : "No file matches the filter."}
          </p>
        ) : null}
      </div>
    </section>
  );
}

function TrialHeader({ studyId, trial }: { studyId: string; trial: CompareTrialView }) {
  return (
    <th className="min-w-40 border-l border-line px-3 py-2 align-top font-normal" data-testid="compare-trial">
      <span className="block text-sm font-medium text-ink">{trial.label}</span>
      <span className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1">
        <TrialStateBadge state={trial.state} />
        <span
          className={`tabular-nums ${trial.verdict?.ok ? "text-ok-soft" : trial.verdict ? "text-danger-soft" : ""}`}
        >
          {formatVerdict(trial.verdict)}
        </span>
        <span className="tabular-nums">{formatCount(trial.tokens.total)} tok</span>
        <span className="tabular-nums">{formatSeconds(trial.agentSeconds)} s</span>
      </span>
      {trial.unavailable ? <span className="mt-1 block text-warn-soft">{trial.unavailable}</span> : null}
      <Link
        href={`/studies/${studyId}/trials/${trial.trialId}`}
        className={`mt-1 inline-block text-accent hover:underline ${focusRing}`}
        aria-label={`Review ${trial.label}`}
      >
        Review
      </Link>
    </th>
  );
}

function MatrixRow({
  file,
  trials,
  selected,
  onOpen,
}: {
  file: MatrixFile;
  trials: CompareTrialView[];
  selected: boolean;
  onOpen: (pathKey: string, rightTrialId?: string) => void;
}) {
  return (
    <tr className={`border-t border-line ${selected ? "bg-line/60" : "hover:bg-line/30"}`} data-path={file.path}>
      <th scope="row" className="max-w-md px-3 py-1 font-normal">
        <button
          type="button"
          className={`block max-w-full truncate text-left font-mono text-xs hover:underline ${focusRing}`}
          title={file.path}
          aria-current={selected ? "true" : undefined}
          onClick={() => onOpen(file.pathKey)}
        >
          {file.path}
        </button>
      </th>
      {trials.map((trial) => {
        const kind = file.changes[trial.trialId] ?? null;
        return (
          <td key={trial.trialId} className="border-l border-line px-3 py-1">
            {kind ? (
              <button
                type="button"
                className={`rounded ${focusRing}`}
                aria-label={`${file.path}: ${changeKindWord(kind)} by ${trial.label}; open its diff`}
                onClick={() => onOpen(file.pathKey, trial.trialId)}
              >
                <ChangeKindBadge kind={kind} />
              </button>
            ) : (
              <span className="text-xs text-muted" title="unchanged">
                ·
              </span>
            )}
          </td>
        );
      })}
    </tr>
  );
}
