"use client";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { rooms } from "../../shared/event-catalog";
import { PageHeader, Panel } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { useTRPC } from "../_lib/trpc";
import { useLiveQuery } from "../_lib/use-live-query";
import { HealthPanel } from "./health-panel";
import { BrowserSessions } from "./browser-sessions";
import { ChecksPanel } from "./checks-panel";
import { ModelPrices } from "./model-prices";
import { ViewerLinks } from "./viewer-links";
import { WorkersPanel } from "./workers-panel";

export default function SystemPage() {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const queryKeys = useMemo(() => [trpc.system.workers.queryKey(), trpc.system.recentEvents.queryKey()], [trpc]);
  useLiveQuery({ room: rooms.system, queryKeys });

  return (
    <>
      <PageHeader
        title="System"
        description="Health of this host, the workers that run jobs, and who can see this dashboard."
      />
      <div className="grid gap-6">
        <HealthPanel />
        <ChecksPanel />
        <WorkersPanel isAdmin={isAdmin} />
        <ModelPrices isAdmin={isAdmin} />
        {isAdmin ? <ViewerLinks /> : null}
        {isAdmin ? <BrowserSessions /> : null}
        <RecentEventsPanel />
      </div>
    </>
  );
}

function RecentEventsPanel() {
  const trpc = useTRPC();
  const events = useQuery(trpc.system.recentEvents.queryOptions({ limit: 20 }));
  return (
    <Panel title="Recent events">
      <ul className="grid gap-1 font-mono text-xs text-muted" aria-label="Recent events">
        {(events.data ?? []).map(({ id, event }) => (
          <li key={id}>
            {new Date(event.at).toLocaleTimeString()} {event.type} {"host" in event.data ? `${event.data.host}` : ""}
          </li>
        ))}
        {events.data?.length === 0 ? <li>No events yet.</li> : null}
      </ul>
    </Panel>
  );
}
