"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../_lib/trpc";
import { QueryState } from "../_components/query-state";
import { EmptyState, PageHeader, Panel } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { SessionsTable } from "./sessions-table";
import { StartSessionForm } from "./start-session-form";
import { useSessionsLive } from "./use-sessions";

export default function SessionsPage() {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  useSessionsLive();
  const sessions = useQuery(trpc.sessions.list.queryOptions({}));
  const projects = useQuery(trpc.projects.list.queryOptions());
  const hasProjects = (projects.data?.length ?? 0) > 0;
  return (
    <>
      <PageHeader
        title="Sessions"
        description="An agent (Codex, Claude Code, Gemini CLI) or a shell in a project's environment, in your browser. Close the tab and it keeps running; come back to it from any browser."
      />
      {isAdmin && hasProjects ? (
        <Panel title="Start a session" className="mb-6">
          <StartSessionForm />
        </Panel>
      ) : null}
      <QueryState
        query={sessions}
        loading="Loading sessions…"
        errorPrefix="Could not load sessions"
        isEmpty={(list) => list.length === 0}
        empty={
          <EmptyState title="No sessions yet">
            {hasProjects ? (
              isAdmin ? (
                "Start one above: an agent in a private copy is the safe default; its changes are reviewed before they reach the project."
              ) : (
                "Nobody has started a session yet."
              )
            ) : (
              <>
                Sessions run in a project&apos;s environment.{" "}
                <Link href="/projects" className="text-accent underline">
                  Add a project
                </Link>{" "}
                and prepare its environment first.
              </>
            )}
          </EmptyState>
        }
      >
        {(list) => (
          <Panel title="All sessions">
            <SessionsTable sessions={list} showProject />
          </Panel>
        )}
      </QueryState>
    </>
  );
}
