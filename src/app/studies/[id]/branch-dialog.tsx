"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type SyntheticEvent } from "react";
import type { BranchCreateView, BranchPreviewView } from "../../../shared/branch-schemas";
import { QueryState } from "../../_components/query-state";
import {
  buttonClass,
  dangerBoxClass,
  ErrorMessage,
  focusRing,
  inputClass,
  smallButtonClass,
  warnBoxClass,
} from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { okBoxClass } from "./apply-outcome";
import { BranchList } from "./branch-list";

function Created({ result }: { result: BranchCreateView }) {
  const { branch, push } = result;
  return (
    <div className="space-y-3">
      <div role="status" data-testid="branch-outcome" data-outcome="created" className={okBoxClass}>
        <p className="font-semibold [overflow-wrap:anywhere]">Created {branch.name}</p>
        <p className="mt-1">
          One commit of the trial&apos;s {result.files} changed file{result.files === 1 ? "" : "s"}:{" "}
          <code className="font-mono [overflow-wrap:anywhere]" data-testid="branch-commit">
            {branch.commit}
          </code>
          , on the study&apos;s commit <code className="font-mono">{branch.baseCommit.slice(0, 12)}</code>. Your working
          tree, index and current branch are as they were.
        </p>
        {push?.ok ? (
          <p className="mt-1" data-testid="branch-pushed">
            Pushed to <span className="font-mono">{push.remote}</span>.
          </p>
        ) : null}
      </div>
      {push && !push.ok ? (
        <div role="alert" data-testid="branch-push-failed" className={dangerBoxClass}>
          <p className="font-semibold">The push to {push.remote} failed; the branch is in the repository.</p>
          <pre className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap font-mono text-xs">{push.output}</pre>
          <p className="mt-2">
            Push it yourself:{" "}
            <code className="font-mono">
              git push {push.remote} {branch.name}
            </code>
          </p>
        </div>
      ) : null}
    </div>
  );
}

function CreateForm({
  preview,
  pending,
  onCreate,
}: {
  preview: BranchPreviewView;
  pending: boolean;
  onCreate: (remote: string | null) => void;
}) {
  const [remote, setRemote] = useState("");
  const remoteId = useId();
  return (
    <form
      aria-label="Apply as a branch"
      onSubmit={(event) => {
        event.preventDefault();
        onCreate(remote || null);
      }}
    >
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted">Branch</dt>
        <dd className="min-w-0 font-mono [overflow-wrap:anywhere]" data-testid="branch-name">
          {preview.name}
        </dd>
        <dt className="text-muted">From</dt>
        <dd className="min-w-0">
          {preview.baseCommit ? (
            <>
              the study&apos;s commit <code className="font-mono">{preview.baseCommit.slice(0, 12)}</code>
            </>
          ) : (
            "no commit"
          )}
        </dd>
      </dl>
      {preview.problem ? (
        <p role="alert" className={`mt-3 ${warnBoxClass}`} data-testid="branch-problem">
          {preview.problem}
        </p>
      ) : (
        <>
          <p className="mt-3 text-sm text-muted">
            One commit with the trial&apos;s changes, its task and verdict in the message. Nothing in the project folder
            changes: not the files, not the index, not the current branch.
          </p>
          <label htmlFor={remoteId} className="mt-3 block text-sm font-medium">
            Push to
          </label>
          <select
            id={remoteId}
            className={`${inputClass} mt-1 max-w-full`}
            value={remote}
            onChange={(event) => setRemote(event.target.value)}
          >
            <option value="">Do not push (keep it local)</option>
            {preview.remotes.map((candidate) => (
              <option key={candidate.name} value={candidate.name}>
                {candidate.name} — {candidate.url}
              </option>
            ))}
          </select>
          <div className="mt-4">
            <button type="submit" className={`${buttonClass} ${focusRing}`} disabled={pending}>
              {pending ? "Creating…" : remote ? `Create branch and push to ${remote}` : "Create branch"}
            </button>
          </div>
        </>
      )}
    </form>
  );
}

/**
 * "Apply as a branch…": the branch the trial's changes would go to (shown before anything is done), an optional
 * remote to push to, the outcome with the commit id, and this trial's branches with Remove.
 */
export function BranchDialog({
  trialId,
  projectId,
  title,
  onClose,
}: {
  trialId: string;
  projectId: string;
  title: string;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const preview = useQuery(trpc.branches.preview.queryOptions({ trialId }, { staleTime: 0, gcTime: 0, retry: false }));
  const create = useMutation(
    trpc.branches.create.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.branches.list.pathKey() }),
    }),
  );
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const onCancel = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!create.isPending) onClose();
  };
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onCancel={onCancel}
      className="m-auto max-h-[90vh] w-[min(48rem,calc(100vw-2rem))] overflow-auto rounded-xl border border-line bg-panel p-5 text-ink backdrop:bg-canvas/80"
    >
      <div className="mb-4 flex items-start justify-between gap-4">
        <h2 className="text-lg font-semibold">{title}</h2>
        <button type="button" className={smallButtonClass} onClick={onClose} disabled={create.isPending}>
          Close
        </button>
      </div>
      {create.data ? (
        <Created result={create.data} />
      ) : (
        <QueryState query={preview} loading="Looking at the project's repository…" compact>
          {(data) => (
            <>
              {create.error ? (
                <ErrorMessage className="mb-3 text-sm">Not created: {describeError(create.error).message}</ErrorMessage>
              ) : null}
              <CreateForm
                preview={data}
                pending={create.isPending}
                onCreate={(remote) => create.mutate({ trialId, remote })}
              />
            </>
          )}
        </QueryState>
      )}
      <h3 className="mb-1 mt-5 text-sm font-semibold">This trial&apos;s branches</h3>
      <BranchList projectId={projectId} trialId={trialId} isAdmin empty="None yet." />
    </dialog>
  );
}
