"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { AppliedTrialView } from "../../../shared/snapshot-schemas";
import type { SessionView } from "../../../shared/session-schemas";
import { focusRing, secondaryButtonClass, smallButtonClass } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { useTRPC } from "../../_lib/trpc";
import { AppliedUndo } from "../../studies/[id]/applied-undo";
import { PatchDownload } from "../../studies/[id]/apply-conflicts";
import { ApplyDialog } from "../../studies/[id]/apply-dialog";

/** The session's latest apply that is still the project's own (applied, not undone), from the project's apply history. */
export function useAppliedSession(session: SessionView): AppliedTrialView | null {
  const trpc = useTRPC();
  const history = useQuery(
    trpc.applies.history.queryOptions(
      { projectId: session.projectId },
      { enabled: session.workspaceId !== null && session.mode === "private" },
    ),
  );
  const record = history.data?.find(
    (candidate) =>
      candidate.workspaceId === session.workspaceId && candidate.outcome === "applied" && !candidate.undoneBy,
  );
  if (!record) return null;
  return {
    trialId: "",
    recordId: record.id,
    projectId: record.projectId,
    appliedAt: record.createdAt,
    appliedBy: record.appliedBy,
    files: record.files.length,
    undoable: record.undoable,
  };
}

/**
 * How a finished private copy's changes reach the project, as a trial's do: "Apply to project…" (the
 * reviewed plan, refused on conflicts), "Applied on … Undo" while that apply is in place, and the patch.
 */
export function SessionApplyActions({ session, changedFiles }: { session: SessionView; changedFiles: number }) {
  const { isAdmin } = useRole();
  const applied = useAppliedSession(session);
  const [applying, setApplying] = useState(false);
  const { workspaceId } = session;
  if (!workspaceId || changedFiles === 0) return null;
  const source = { sessionId: session.id, workspaceId };
  return (
    <div role="group" aria-label="Keep this result" className="flex flex-wrap items-center gap-2">
      {applied ? <AppliedUndo applied={applied} /> : null}
      {isAdmin && session.state === "finished" ? (
        <button
          type="button"
          className={applied ? smallButtonClass : `${secondaryButtonClass} ${focusRing}`}
          onClick={() => setApplying(true)}
        >
          Apply to project…
        </button>
      ) : null}
      <PatchDownload source={source} />
      {applying ? (
        <ApplyDialog
          source={source}
          applied={applied}
          title={`Apply the session's changes to ${session.projectName}`}
          subtitle="Copies the session's changes into the project directory, after checking that none of those files changed since its snapshot."
          onClose={() => setApplying(false)}
        />
      ) : null}
    </div>
  );
}
