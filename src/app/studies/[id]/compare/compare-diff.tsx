"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { CompareFileView, CompareTrialView } from "../../../../shared/review-schemas";
import { DiffEditorLazy } from "../../../_components/diff-editor";
import { QueryState } from "../../../_components/query-state";
import { inputClass } from "../../../_components/ui";
import { useTRPC } from "../../../_lib/trpc";
import { DiffToggles, toolbarButtonClass, useDiffView, type DiffView } from "../_review/diff-toggles";
import { FileSidesFacts, isTextDiff, sideDownloadUrl } from "../_review/file-sides-facts";
import type { LeftSide } from "./use-compare-params";

const SNAPSHOT = "snapshot";

/** One file of two trials (A left, B right) or of the snapshot and a trial, in Monaco. */
export function CompareDiff({
  studyId,
  trials,
  file,
  left,
  right,
  onSides,
}: {
  studyId: string;
  trials: CompareTrialView[];
  file: { path: string; pathKey: string };
  left: LeftSide;
  right: string;
  onSides: (left: LeftSide, right: string) => void;
}) {
  const trpc = useTRPC();
  const [view, setView] = useDiffView();
  const query = useQuery(
    trpc.review.compareFile.queryOptions(
      {
        pathKey: file.pathKey,
        left: "snapshot" in left ? { snapshot: true, studyId } : left,
        right: { trialId: right },
      },
      { placeholderData: keepPreviousData, staleTime: 60_000 },
    ),
  );
  const labelOf = (side: LeftSide | string) =>
    typeof side !== "string" && "snapshot" in side
      ? "Snapshot"
      : (trials.find((trial) => trial.trialId === (typeof side === "string" ? side : side.trialId))?.label ?? "?");
  return (
    <section aria-label="File comparison" className="flex min-h-[60vh] flex-col rounded-lg border border-line bg-panel">
      <div className="flex flex-wrap items-center gap-2 border-b border-line px-3 py-2">
        <h2 className="mr-auto min-w-0 truncate font-mono text-sm" title={file.path} data-testid="diff-path">
          {file.path}
        </h2>
        <SidePickers trials={trials} left={left} right={right} onSides={onSides} />
        <DiffToggles view={view} onChange={setView} />
      </div>
      <div className="relative min-h-0 flex-1">
        <QueryState query={query} loading={`Loading ${file.path}…`} errorPrefix={`Could not compare ${file.path}`}>
          {(data) => (
            <CompareBody
              data={data}
              view={view}
              leftLabel={labelOf(left)}
              rightLabel={labelOf(right)}
              downloads={{ left, right }}
            />
          )}
        </QueryState>
      </div>
    </section>
  );
}

function CompareBody({
  data,
  view,
  leftLabel,
  rightLabel,
  downloads,
}: {
  data: CompareFileView;
  view: DiffView;
  leftLabel: string;
  rightLabel: string;
  downloads: { left: LeftSide; right: string };
}) {
  if (!isTextDiff(data.left, data.right)) {
    const { left, right } = downloads;
    // the snapshot's bytes download as the "before" side of the right trial
    const leftUrl =
      "snapshot" in left
        ? sideDownloadUrl(right, data.pathKey, "before")
        : sideDownloadUrl(left.trialId, data.pathKey, "after");
    return (
      <FileSidesFacts
        path={data.path}
        columns={[
          { title: `A: ${leftLabel}`, side: data.left, download: leftUrl },
          { title: `B: ${rightLabel}`, side: data.right, download: sideDownloadUrl(right, data.pathKey, "after") },
        ]}
      />
    );
  }
  return (
    <div
      className="absolute inset-0"
      data-testid="diff-editor"
      data-path={data.path}
      data-layout={view.sideBySide ? "side-by-side" : "inline"}
    >
      <DiffEditorLazy
        original={data.left.text ?? ""}
        modified={data.right.text ?? ""}
        language={data.language}
        sideBySide={view.sideBySide}
        wordWrap={view.wordWrap}
        originalLabel={`${data.path} in ${leftLabel}`}
        modifiedLabel={`${data.path} in ${rightLabel}`}
      />
    </div>
  );
}

/** A (left: the snapshot or a trial), B (right: a trial), and Swap. */
function SidePickers({
  trials,
  left,
  right,
  onSides,
}: {
  trials: CompareTrialView[];
  left: LeftSide;
  right: string;
  onSides: (left: LeftSide, right: string) => void;
}) {
  const leftValue = "snapshot" in left ? SNAPSHOT : left.trialId;
  return (
    <>
      <label className="flex items-center gap-1 whitespace-nowrap text-xs text-muted">
        A (left)
        <select
          className={`${inputClass} w-auto py-1`}
          value={leftValue}
          onChange={(event) =>
            onSides(event.target.value === SNAPSHOT ? { snapshot: true } : { trialId: event.target.value }, right)
          }
        >
          <option value={SNAPSHOT}>Snapshot (before every trial)</option>
          {trials.map((trial) => (
            <option key={trial.trialId} value={trial.trialId}>
              {trial.label}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1 whitespace-nowrap text-xs text-muted">
        B (right)
        <select
          className={`${inputClass} w-auto py-1`}
          value={right}
          onChange={(event) => onSides(left, event.target.value)}
        >
          {trials.map((trial) => (
            <option key={trial.trialId} value={trial.trialId}>
              {trial.label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className={toolbarButtonClass}
        disabled={"snapshot" in left}
        onClick={() => ("trialId" in left ? onSides({ trialId: right }, left.trialId) : undefined)}
      >
        Swap
      </button>
    </>
  );
}
