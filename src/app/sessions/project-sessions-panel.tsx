"use client";
import { useQuery } from "@tanstack/react-query";
import type { NetworkMode } from "../../shared/project-schemas";
import type { SessionView } from "../../shared/session-schemas";
import { Panel, warnBoxClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { SessionsTable } from "./sessions-table";
import { StartSessionForm } from "./start-session-form";
import { useSessionsLive } from "./use-sessions";
import { CONTAINER_SESSION_STATES } from "../../shared/session-schemas";

/** Sessions whose container still runs on the network mode the project had before a change. */
export function sessionsOnOldNetwork(sessions: readonly SessionView[], projectMode: NetworkMode): SessionView[] {
  return sessions.filter(
    (session) => session.network !== projectMode && CONTAINER_SESSION_STATES.includes(session.state),
  );
}

/** A project's sessions on its page: the list, a start form for admins, and a network change still to apply. */
export function ProjectSessionsPanel(props: { projectId: string; networkMode: NetworkMode; isAdmin: boolean }) {
  const trpc = useTRPC();
  useSessionsLive();
  const sessions = useQuery(trpc.sessions.list.queryOptions({ projectId: props.projectId }));
  const unfinished = (sessions.data ?? []).filter((session) => session.state !== "finished");
  const stale = sessionsOnOldNetwork(unfinished, props.networkMode);
  return (
    <Panel title="Sessions" className="mb-6">
      {stale.length > 0 ? (
        <p className={`mb-3 ${warnBoxClass}`} role="status">
          Network mode is now <strong>{props.networkMode}</strong>;{" "}
          {stale.length === 1 ? "a session" : `${stale.length} sessions`} still {stale.length === 1 ? "runs" : "run"}{" "}
          with <strong>{stale[0]?.network}</strong>. It applies after a resume: exit the agent or the shell, then
          Resume.
        </p>
      ) : null}
      {props.isAdmin ? (
        <details className="mb-3">
          <summary className="cursor-pointer text-sm text-accent">Start a session in this project</summary>
          <div className="mt-3">
            <StartSessionForm projectId={props.projectId} />
          </div>
        </details>
      ) : null}
      {sessions.error ? <p className="text-sm text-danger">{describeError(sessions.error).message}</p> : null}
      {sessions.data && unfinished.length === 0 ? (
        <p className="text-sm text-muted">
          No open sessions. A session is an agent (Codex, Claude Code, Gemini CLI) or a shell in this project&apos;s
          environment, in your browser.
        </p>
      ) : null}
      {unfinished.length > 0 ? <SessionsTable sessions={unfinished} showProject={false} /> : null}
    </Panel>
  );
}
