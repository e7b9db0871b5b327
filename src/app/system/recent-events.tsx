"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { Panel } from "../_components/ui";
import { useTRPC } from "../_lib/trpc";

const linkClass = "text-accent underline";

/** The latest events, each naming its project and study with links (and the worker's host for worker events). */
export function RecentEventsPanel() {
  const trpc = useTRPC();
  const events = useQuery(trpc.system.recentEvents.queryOptions({ limit: 20 }));
  const projects = useQuery(trpc.projects.list.queryOptions());
  const studies = useQuery(trpc.studies.list.queryOptions({}));
  const names = useMemo(
    () => ({
      project: new Map((projects.data ?? []).map((p) => [p.id, p.name])),
      study: new Map((studies.data ?? []).map((s) => [s.id, s.title])),
    }),
    [projects.data, studies.data],
  );
  return (
    <Panel title="Recent events">
      <ul className="grid gap-1 text-xs text-muted" aria-label="Recent events">
        {(events.data ?? []).map(({ id, event }) => (
          <li key={id} className="flex flex-wrap gap-x-2" data-testid="recent-event">
            <span className="font-mono">{new Date(event.at).toLocaleTimeString()}</span>
            <span className="font-mono">{event.type}</span>
            {event.projectId ? (
              <Link href={`/projects/${event.projectId}`} className={linkClass}>
                {names.project.get(event.projectId) ?? "a removed project"}
              </Link>
            ) : null}
            {event.studyId ? (
              <Link href={`/studies/${event.studyId}`} className={linkClass}>
                {names.study.get(event.studyId) ?? "a removed study"}
              </Link>
            ) : null}
            {"host" in event.data ? <span>{String(event.data.host)}</span> : null}
          </li>
        ))}
        {events.data?.length === 0 ? (
          <li>No events yet: they appear here as environments build, trials run and workers come and go.</li>
        ) : null}
      </ul>
    </Panel>
  );
}
