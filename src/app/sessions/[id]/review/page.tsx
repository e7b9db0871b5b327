"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useMemo, useState } from "react";
import { sessionKindLabel, type SessionView } from "../../../../shared/session-schemas";
import { preloadDiffEditor } from "../../../_components/diff-editor";
import { QueryState } from "../../../_components/query-state";
import { focusRing } from "../../../_components/ui";
import { useTRPC } from "../../../_lib/trpc";
import { wideClass } from "../../../studies/[id]/_review/wide";
import { ReviewWorkspace, type ReviewFiles } from "../../../studies/[id]/trials/[trialId]/review-workspace";
import { useReviewFiles } from "../../../studies/[id]/trials/[trialId]/use-review-files";
import { sessionStateLabel } from "../../sessions-table";
import { useSessionsLive } from "../../use-sessions";
import { SessionApplyActions } from "../session-apply";

/** /sessions/<id>/review: what a private-copy session changed, file by file, as a trial's review shows it. */
export default function SessionReviewPage() {
  const { id } = useParams<{ id: string }>();
  const params = useSearchParams();
  const [opened] = useState<string | true>(() => params.get("file") ?? true);
  const trpc = useTRPC();
  useSessionsLive();
  const session = useQuery(trpc.sessions.get.queryOptions({ sessionId: id }));
  const subject = useMemo(() => ({ sessionId: id }), [id]);
  // the file list with the first diff and Monaco's code load beside the session
  useReviewFiles(subject, opened);
  useEffect(() => preloadDiffEditor(), []);
  return (
    <QueryState
      query={session}
      loading="Loading the session…"
      errorPrefix="Could not load this session"
      errorExtra={
        <Link href="/sessions" className="text-accent underline">
          All sessions
        </Link>
      }
    >
      {(data) => (
        <Suspense fallback={<p className="text-muted">Loading…</p>}>
          <div className={wideClass}>
            <SessionReviewHeader session={data} subject={subject} opened={opened} />
            <ReviewWorkspace
              subject={subject}
              opened={opened}
              emptyMessage={(files, filter) => emptyMessage(data, files, filter)}
            />
          </div>
        </Suspense>
      )}
    </QueryState>
  );
}

function SessionReviewHeader({
  session,
  subject,
  opened,
}: {
  session: SessionView;
  subject: { sessionId: string };
  opened: string | true;
}) {
  const files = useReviewFiles(subject, opened);
  const all = !files.query.hasNextPage;
  const insertions = files.items.reduce((sum, item) => sum + item.insertions, 0);
  const deletions = files.items.reduce((sum, item) => sum + item.deletions, 0);
  const title = `${sessionKindLabel(session)} in ${session.projectName}`;
  return (
    <header className="mb-4 space-y-3">
      <nav aria-label="Breadcrumb" className="text-sm text-muted">
        <Link href={`/sessions/${session.id}`} className={`text-accent hover:underline ${focusRing}`}>
          ← Session
        </Link>
        {" · "}
        <Link href={`/projects/${session.projectId}`} className={`text-accent hover:underline ${focusRing}`}>
          {session.projectName}
        </Link>
      </nav>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">Review: {title}</h1>
          <dl className="mt-2 flex flex-wrap gap-x-6 gap-y-1 text-sm">
            <div className="flex items-baseline gap-1.5">
              <dt className="text-xs uppercase tracking-wide text-muted">State</dt>
              <dd data-testid="session-state">{sessionStateLabel(session)}</dd>
            </div>
            <div className="flex items-baseline gap-1.5">
              <dt className="text-xs uppercase tracking-wide text-muted">Changes</dt>
              <dd className="tabular-nums" data-testid="session-review-totals">
                {files.query.data ? (
                  <>
                    {files.total} file{files.total === 1 ? "" : "s"}
                    {all ? (
                      <>
                        {" "}
                        <span className="text-ok-soft">+{insertions}</span>{" "}
                        <span className="text-danger-soft">−{deletions}</span>
                      </>
                    ) : null}
                  </>
                ) : (
                  "…"
                )}
              </dd>
            </div>
          </dl>
        </div>
        <div className="ml-auto">
          <SessionApplyActions session={session} changedFiles={files.total} />
        </div>
      </div>
      {session.state !== "finished" && session.mode === "private" ? (
        <p className="text-sm text-muted">
          The session is {sessionStateLabel(session)}: its files may still change. Apply it once it is finished.
        </p>
      ) : null}
    </header>
  );
}

function emptyMessage(session: SessionView, files: ReviewFiles, filter: string): string | null {
  if (files.query.isPending) return null;
  if (session.mode === "direct")
    return "This session worked in the project directory itself: its changes are already there, so there is no copy to review.";
  if (files.query.error) return "The changed files could not be listed (see the message on the left).";
  if (files.total === 0) return "This session changed no files.";
  return filter ? "No changed file matches the filter." : "Choose a file on the left.";
}
