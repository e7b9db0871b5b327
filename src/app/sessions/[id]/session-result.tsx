"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { SessionView } from "../../../shared/session-schemas";
import { useTRPC } from "../../_lib/trpc";
import { QueryState } from "../../_components/query-state";
import { buttonClass, focusRing, Panel } from "../../_components/ui";
import { SessionApplyActions } from "./session-apply";

/** How many changed files the finished page lists; the review shows them all. */
const LISTED = 20;

/**
 * A finished session's result. A private copy's: what it changed against its snapshot (the first files,
 * with their line counts), "Review changes" (the same review as a trial's: tree, diffs, patch) first, then
 * applying it to the project through the reviewed plan, with Undo. A direct session's changes are in the
 * project already.
 */
export function SessionResult({ session }: { session: SessionView }) {
  const trpc = useTRPC();
  const privateCopy = session.mode === "private" && session.workspaceId !== null;
  const files = useQuery(
    trpc.review.files.queryOptions({ sessionId: session.id, limit: LISTED }, { enabled: privateCopy }),
  );
  if (!privateCopy)
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
      <QueryState query={files} loading="Reading the changes…" errorPrefix="Could not read the changes" compact>
        {(changes) =>
          changes.total === 0 ? (
            <p className="text-sm text-muted" data-testid="session-no-changes">
              No changes: the session changed no files, so there is nothing to review or apply.
            </p>
          ) : (
            <div className="grid gap-3">
              <p className="text-sm">
                {changes.total} changed file{changes.total === 1 ? "" : "s"}
              </p>
              <ul className="grid gap-1 font-mono text-xs" aria-label="Changed files">
                {changes.items.map((change) => (
                  <li key={change.pathKey} className="[overflow-wrap:anywhere]">
                    <span className="inline-block w-20 font-sans text-muted">{change.status}</span>
                    {change.path} <span className="text-ok-soft">+{change.insertions}</span>{" "}
                    <span className="text-danger-soft">−{change.deletions}</span>
                  </li>
                ))}
                {changes.total > changes.items.length ? (
                  <li className="font-sans text-muted">… and {changes.total - changes.items.length} more</li>
                ) : null}
              </ul>
              <div className="flex flex-wrap items-center gap-2">
                <Link
                  href={`/sessions/${session.id}/review`}
                  className={`${buttonClass} ${focusRing}`}
                  data-testid="session-review-primary"
                >
                  Review changes
                </Link>
                <SessionApplyActions session={session} changedFiles={changes.total} />
              </div>
            </div>
          )
        }
      </QueryState>
    </Panel>
  );
}
