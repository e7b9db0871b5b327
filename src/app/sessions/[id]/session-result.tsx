"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { SessionView } from "../../../shared/session-schemas";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { QueryState } from "../../_components/query-state";
import { buttonClass, ErrorMessage, Panel, secondaryButtonClass } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { ConflictsTable } from "../../studies/[id]/apply-conflicts";
import { PlanSteps } from "../../studies/[id]/apply-plan";

/**
 * A finished private-copy session's result: what it changed against its snapshot, and applying it to
 * the project through the same reviewed plan as a trial's (conflicts refused, confirmed by the plan's hash).
 */
export function SessionResult({ session }: { session: SessionView }) {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const [planning, setPlanning] = useState(false);
  const workspaceId = session.workspaceId ?? "";
  const diff = useQuery(
    trpc.workspaces.diff.queryOptions({ workspaceId }, { enabled: session.mode === "private" && workspaceId !== "" }),
  );
  const preview = useQuery(
    trpc.applies.preview.queryOptions({ workspaceId }, { enabled: planning, staleTime: 0, gcTime: 0, retry: false }),
  );
  const run = useMutation(trpc.applies.run.mutationOptions());
  if (session.mode === "direct" || !session.workspaceId)
    return (
      <Panel title="Result">
        <p className="text-sm">
          {session.mode === "direct"
            ? "This session worked in the project directory itself: its changes are already there."
            : "This session never ran, so it changed nothing."}
        </p>
      </Panel>
    );
  return (
    <Panel title="Result: the private copy's changes">
      <QueryState query={diff} loading="Reading the changes…" errorPrefix="Could not read the changes" compact>
        {(changes) =>
          changes.changes.length === 0 ? (
            <p className="text-sm text-muted">The session changed no files.</p>
          ) : (
            <ul className="mb-4 grid gap-1 font-mono text-xs" aria-label="Changed files">
              {changes.changes.map((change) => (
                <li key={change.pathBytes ?? change.path}>
                  <span className="inline-block w-20 text-muted">{change.status}</span>
                  {change.path}
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
      {isAdmin && diff.data && diff.data.changes.length > 0 ? (
        planning ? (
          <QueryState query={preview} loading="Planning the apply…" errorPrefix="Could not plan the apply" compact>
            {(plan) =>
              run.data ? (
                <p className="text-sm text-ok" role="status">
                  Applied {plan.steps.length} change{plan.steps.length === 1 ? "" : "s"} to the project.
                </p>
              ) : (
                <div className="grid gap-3">
                  <PlanSteps preview={plan} />
                  {plan.conflicts.length > 0 ? <ConflictsTable conflicts={plan.conflicts} steps={plan.steps} /> : null}
                  <div className="flex gap-2">
                    <button
                      type="button"
                      className={buttonClass}
                      disabled={plan.conflicts.length > 0 || run.isPending}
                      onClick={() => run.mutate({ workspaceId, planHash: plan.planHash })}
                    >
                      {run.isPending ? "Applying…" : "Apply to project"}
                    </button>
                    <button type="button" className={secondaryButtonClass} onClick={() => setPlanning(false)}>
                      Cancel
                    </button>
                  </div>
                  {run.error ? <ErrorMessage>{describeError(run.error).message}</ErrorMessage> : null}
                </div>
              )
            }
          </QueryState>
        ) : (
          <button type="button" className={buttonClass} onClick={() => setPlanning(true)}>
            Apply to project…
          </button>
        )
      ) : null}
    </Panel>
  );
}
