"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ResultBranchView } from "../../../shared/branch-schemas";
import { QueryState } from "../../_components/query-state";
import {
  dangerButtonClass,
  ErrorMessage,
  focusRing,
  secondaryButtonClass,
  smallButtonClass,
  warnBoxClass,
} from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { formatDateTime } from "../study-format";

/** branches.remove, refreshing every branch list and preview. */
export function useRemoveBranch() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.branches.remove.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.branches.pathKey() }),
    }),
  );
}

function BranchState({ branch }: { branch: ResultBranchView }) {
  if (branch.removedAt) return <span className="text-muted">removed {formatDateTime(branch.removedAt)}</span>;
  if (branch.pushedAt)
    return (
      <span>
        pushed to <span className="font-mono">{branch.remote}</span>
      </span>
    );
  return <span className="text-muted">in the repository, not pushed</span>;
}

function BranchRow({
  branch,
  canRemove,
  onRemove,
}: {
  branch: ResultBranchView;
  canRemove: boolean;
  onRemove: (branch: ResultBranchView) => void;
}) {
  return (
    <li
      data-testid="result-branch"
      data-removed={branch.removedAt ? "true" : "false"}
      className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 border-t border-line py-2 first:border-t-0"
    >
      <div className="min-w-0">
        <p className="font-mono text-sm [overflow-wrap:anywhere]">{branch.name}</p>
        <p className="text-xs text-muted">
          {branch.trialName ?? "A removed trial"}
          {branch.studyTitle ? ` of ${branch.studyTitle}` : ""} · commit{" "}
          <code className="font-mono" title={branch.commit}>
            {branch.commit.slice(0, 12)}
          </code>{" "}
          on{" "}
          <code className="font-mono" title={branch.baseCommit}>
            {branch.baseCommit.slice(0, 12)}
          </code>{" "}
          · {formatDateTime(branch.createdAt)} by {branch.createdBy}
        </p>
        <p className="text-xs">
          <BranchState branch={branch} />
        </p>
      </div>
      {canRemove && !branch.removedAt ? (
        <button type="button" className={smallButtonClass} onClick={() => onRemove(branch)}>
          Remove
        </button>
      ) : null}
    </li>
  );
}

/**
 * Branches made by Apply as a branch, newest first (a project's, or one trial's): name, commit, the commit it
 * stands on, pushed or not; an admin removes one after a confirmation (only while it is where it was made).
 */
export function BranchList({
  projectId,
  trialId,
  isAdmin,
  empty,
}: {
  projectId: string;
  trialId?: string;
  isAdmin: boolean;
  empty: string;
}) {
  const trpc = useTRPC();
  const list = useQuery(trpc.branches.list.queryOptions({ projectId, ...(trialId ? { trialId } : {}) }));
  const remove = useRemoveBranch();
  const [confirming, setConfirming] = useState<ResultBranchView | null>(null);
  return (
    <div data-testid="branch-list">
      {confirming ? (
        <div role="group" aria-label="Confirm removing the branch" className={`mb-3 ${warnBoxClass}`}>
          <p className="font-semibold [overflow-wrap:anywhere]">Remove {confirming.name}?</p>
          <p className="mt-1">
            It is deleted from the project&apos;s repository if it still points at{" "}
            <code className="font-mono">{confirming.commit.slice(0, 12)}</code>; a copy pushed to a remote stays there.
          </p>
          <div className="mt-3 flex gap-3">
            <button
              type="button"
              className={`${dangerButtonClass} ${focusRing}`}
              disabled={remove.isPending}
              onClick={() => remove.mutate({ branchId: confirming.id }, { onSettled: () => setConfirming(null) })}
            >
              {remove.isPending ? "Removing…" : "Remove branch"}
            </button>
            <button
              type="button"
              className={`${secondaryButtonClass} ${focusRing}`}
              onClick={() => setConfirming(null)}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {remove.error ? (
        <ErrorMessage className="mb-2 text-sm">Not removed: {describeError(remove.error).message}</ErrorMessage>
      ) : null}
      <QueryState
        query={list}
        loading="Loading the branches…"
        errorPrefix="Could not load the branches"
        compact
        isEmpty={(rows) => rows.length === 0}
        empty={<p className="text-sm text-muted">{empty}</p>}
      >
        {(rows) => (
          <ul aria-label="Result branches">
            {rows.map((branch) => (
              <BranchRow
                key={branch.id}
                branch={branch}
                canRemove={isAdmin && !remove.isPending}
                onRemove={(chosen) => {
                  remove.reset();
                  setConfirming(chosen);
                }}
              />
            ))}
          </ul>
        )}
      </QueryState>
    </div>
  );
}
