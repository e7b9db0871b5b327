"use client";
import Link from "next/link";
import { sessionKindLabel, type SessionView } from "../../shared/session-schemas";
import { formatRelative } from "../_lib/format";
import { focusRing } from "../_components/ui";
import { SessionActions } from "./session-actions";

const STATE_LABEL: Record<SessionView["state"], string> = {
  starting: "starting",
  running: "running",
  exited: "exited",
  finishing: "finishing",
  finished: "finished",
  interrupted: "interrupted",
};

export function sessionStateLabel(session: SessionView): string {
  if (session.fetchingImage) return "fetching image";
  return session.detached ? "detached" : STATE_LABEL[session.state];
}

function tokensText(session: SessionView): string {
  const { total } = session.tokens;
  return total === 0 ? "—" : total.toLocaleString("en-US");
}

/** Sessions with their state, mode, who started them, activity, thread and tokens, and the actions that apply. */
export function SessionsTable({ sessions, showProject }: { sessions: SessionView[]; showProject: boolean }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[720px] text-left text-sm" aria-label="Sessions">
        <thead className="text-xs uppercase tracking-wide text-muted">
          <tr>
            <th className="py-2 pr-3 font-medium">Session</th>
            {showProject ? <th className="py-2 pr-3 font-medium">Project</th> : null}
            <th className="py-2 pr-3 font-medium">State</th>
            <th className="py-2 pr-3 font-medium">Mode</th>
            <th className="py-2 pr-3 font-medium">Started by</th>
            <th className="py-2 pr-3 font-medium">Last activity</th>
            <th className="py-2 pr-3 font-medium">Thread</th>
            <th className="py-2 pr-3 text-right font-medium">Tokens</th>
            <th className="py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.id} className="border-t border-line align-middle">
              <td className="py-2 pr-3">
                <Link href={`/sessions/${session.id}`} className={`text-accent underline ${focusRing}`}>
                  {sessionKindLabel(session)}
                </Link>
                <span className="block text-xs text-muted">started {formatRelative(session.createdAt)}</span>
              </td>
              {showProject ? (
                <td className="py-2 pr-3">
                  <Link href={`/projects/${session.projectId}`} className={`underline ${focusRing}`}>
                    {session.projectName}
                  </Link>
                </td>
              ) : null}
              <td className="py-2 pr-3" data-testid="session-state">
                {sessionStateLabel(session)}
              </td>
              <td className="py-2 pr-3">{session.mode === "direct" ? "direct" : "private copy"}</td>
              <td className="py-2 pr-3">{session.startedBy}</td>
              <td className="py-2 pr-3">{formatRelative(session.lastActivityAt)}</td>
              <td className="max-w-[10rem] truncate py-2 pr-3 font-mono text-xs" title={session.threadId ?? ""}>
                {session.threadId ?? "—"}
              </td>
              <td className="py-2 pr-3 text-right tabular-nums">{tokensText(session)}</td>
              <td className="py-2">
                <SessionActions session={session} compact />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
