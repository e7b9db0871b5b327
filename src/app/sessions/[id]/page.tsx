"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { use, useState } from "react";
import {
  isAgentSession,
  sessionKindLabel,
  type SessionView,
  type TerminalState,
} from "../../../shared/session-schemas";
import { useTRPC } from "../../_lib/trpc";
import { QueryState } from "../../_components/query-state";
import { dangerBoxClass, Fact, PageHeader, Spinner, warnBoxClass } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { SessionActions } from "../session-actions";
import { ContinuedTrialLink } from "../continued-trial-link";
import { sessionStateLabel } from "../sessions-table";
import { useSessionsLive } from "../use-sessions";
import { TerminalView } from "./terminal-view";
import { SessionResult } from "./session-result";
import { LastScreen } from "./last-screen";

function SessionFacts({ session, size }: { session: SessionView; size: TerminalSize | null }) {
  const tokens = session.tokens.input + session.tokens.output;
  // before the agent's first reply there is no thread and no token yet: say so rather than a bare dash
  const agent = isAgentSession(session.kind);
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
      <Fact label="State">
        <span data-testid="session-state">{sessionStateLabel(session)}</span>
      </Fact>
      <Fact label="Files">{session.mode === "direct" ? "project directory (direct)" : "private copy"}</Fact>
      <Fact label="Started by">{session.startedBy}</Fact>
      <Fact label="Thread" className="truncate font-mono text-xs">
        <span data-testid="session-thread" title={session.threadId ?? undefined}>
          {session.threadId ?? (agent ? "none yet" : "none (a shell)")}
        </span>
      </Fact>
      <Fact label="Tokens">
        <span data-testid="session-tokens">
          {tokens > 0 ? tokens.toLocaleString("en-US") : agent ? "none yet" : "none (a shell)"}
        </span>
      </Fact>
      <Fact label="Network">{session.network}</Fact>
      <Fact label="Terminal">{`${size?.columns ?? session.columns}×${size?.rows ?? session.rows}`}</Fact>
    </dl>
  );
}

/** A continue-a-result session waiting for its trial's image from the worker on another host that keeps it. */
function FetchingImage({ session }: { session: SessionView }) {
  return (
    <div role="status" aria-label="Fetching the result image" className="space-y-2 rounded-md border border-line p-4">
      <p className="flex items-start gap-2 text-sm">
        <span className="mt-0.5 shrink-0">
          <Spinner />
        </span>
        {session.reason ?? "Fetching the trial's result image…"}
      </p>
      <p className="text-sm text-muted">
        The terminal opens once the image is on this host and the session&apos;s container runs; a large image takes a
        few minutes. If that worker is offline or no longer has the image, the session ends here and says what to do.
      </p>
    </div>
  );
}

interface TerminalSize {
  columns: number;
  rows: number;
}

export default function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  const trpc = useTRPC();
  const { isAdmin, role } = useRole();
  useSessionsLive();
  const session = useQuery(trpc.sessions.get.queryOptions({ sessionId: id }));
  const [live, setLive] = useState<TerminalState | null>(null);
  const [size, setSize] = useState<TerminalSize | null>(null);
  return (
    <QueryState
      query={session}
      loading="Loading the session…"
      errorPrefix="Could not load this session"
      errorExtra={
        <Link href="/sessions" className="underline">
          All sessions
        </Link>
      }
    >
      {(s) => (
        <div className="flex min-h-[calc(100vh-8rem)] flex-col gap-4">
          <PageHeader
            title={`${sessionKindLabel(s)} in ${s.projectName}`}
            description={
              <>
                <Link href={`/projects/${s.projectId}`} className="underline">
                  {s.projectName}
                </Link>
                {s.fromTrialId ? <ContinuedTrialLink trialId={s.fromTrialId} /> : null}
              </>
            }
            actions={<SessionActions session={s} />}
          />
          <SessionFacts session={s} size={size} />
          {s.notice ? (
            <div role="alert" data-testid="session-notice" className={`${warnBoxClass} whitespace-pre-line`}>
              {s.notice}
            </div>
          ) : null}
          {s.reason && s.state !== "running" && !s.fetchingImage ? (
            <p className={s.reason.startsWith("Could not start") ? dangerBoxClass : "text-sm text-muted"}>
              {live?.reason ?? s.reason}
            </p>
          ) : null}
          {role === "viewer" ? (
            <p className={warnBoxClass}>You are watching read-only: what you type is not sent.</p>
          ) : null}
          {s.fetchingImage ? (
            <FetchingImage session={s} />
          ) : s.state === "finished" ? (
            <>
              <SessionResult session={s} />
              <LastScreen session={s} />
            </>
          ) : (
            // the terminal fills the rest of the window, so its rows follow the window's height
            <div className="relative min-h-[320px] flex-1">
              {role === null ? null : (
                <TerminalView
                  sessionId={s.id}
                  interactive={isAdmin && (live?.state ?? s.state) === "running"}
                  isAdmin={isAdmin}
                  onState={setLive}
                  onSize={setSize}
                />
              )}
            </div>
          )}
        </div>
      )}
    </QueryState>
  );
}
