"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import type { StudyView } from "../../../../shared/study-schemas";
import { preloadDiffEditor } from "../../../_components/diff-editor";
import { EmptyState } from "../../../_components/ui";
import { QueryState } from "../../../_components/query-state";
import { useTRPC } from "../../../_lib/trpc";
import { CompareDiff } from "./compare-diff";
import { CompareMatrix } from "./compare-matrix";
import { ManifestDiff } from "./manifest-diff";
import { TrialPicker } from "./trial-picker";
import { useCompareParams, type LeftSide } from "./use-compare-params";

/** Pick trials; the matrix of what each changed; the diff of one file between two of them. */
export function CompareView({ study }: { study: StudyView }) {
  const trpc = useTRPC();
  const [params, update] = useCompareParams();
  // the first file opened should not wait for Monaco's code
  useEffect(() => preloadDiffEditor(), []);
  const trialIds = params.trialIds.filter((id) => study.trials.some((trial) => trial.id === id));
  const ready = trialIds.length >= 2;
  const compare = useQuery(
    trpc.review.compare.queryOptions(
      { studyId: study.id, trialIds },
      { enabled: ready, placeholderData: keepPreviousData },
    ),
  );
  const ids = compare.data?.trials.map((trial) => trial.trialId) ?? [];
  const right = params.right && ids.includes(params.right) ? params.right : (ids[1] ?? null);
  const left: LeftSide =
    params.left && ("snapshot" in params.left || ids.includes(params.left.trialId))
      ? params.left
      : { trialId: ids.find((id) => id !== right) ?? ids[0] ?? "" };
  // the first file opens unless another is chosen
  const file =
    compare.data?.files.find((candidate) => candidate.pathKey === params.file) ?? compare.data?.files[0] ?? null;
  const open = (pathKey: string, rightTrialId?: string) => {
    if (!rightTrialId || rightTrialId === right) return update({ file: pathKey, left, right });
    // a cell puts its trial on the right; the left keeps its side unless it is that same trial
    const nextLeft = "trialId" in left && left.trialId === rightTrialId ? { trialId: right ?? "" } : left;
    update({ file: pathKey, left: nextLeft, right: rightTrialId });
  };
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Compare trials</h1>
        <p className="mt-1 text-sm text-muted">
          {study.title}: which trial changed which file, and how their versions differ.
        </p>
      </div>
      <TrialPicker study={study} selected={trialIds} onChange={(next) => update({ trialIds: next })} />
      {ready ? (
        <ManifestDiff trials={trialIds.flatMap((id) => study.trials.find((trial) => trial.id === id) ?? [])} />
      ) : null}
      {!ready ? (
        <EmptyState title="Choose at least two trials">
          Tick two to eight trials above to see which files each one changed.
        </EmptyState>
      ) : (
        <QueryState query={compare} loading="Comparing the trials…" errorPrefix="Could not compare the trials">
          {(data) => (
            <>
              <CompareMatrix compare={data} selectedFile={file?.pathKey ?? null} onOpen={open} />
              {file && right ? (
                <CompareDiff
                  studyId={study.id}
                  trials={data.trials}
                  file={file}
                  left={left}
                  right={right}
                  onSides={(nextLeft, nextRight) => update({ left: nextLeft, right: nextRight })}
                />
              ) : (
                <p className="text-sm text-muted">
                  Click a file (or a cell) of the matrix to see its diff between two trials.
                </p>
              )}
            </>
          )}
        </QueryState>
      )}
    </div>
  );
}
