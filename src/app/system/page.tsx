"use client";
import { useMemo } from "react";
import { rooms } from "../../shared/event-catalog";
import { PageHeader } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { useTRPC } from "../_lib/trpc";
import { useLiveQuery } from "../_lib/use-live-query";
import { HealthPanel } from "./health-panel";
import { BrowserSessions } from "./browser-sessions";
import { ChecksPanel } from "./checks-panel";
import { ModelPrices } from "./model-prices";
import { RecentEventsPanel } from "./recent-events";
import { ViewerLinks } from "./viewer-links";
import { WorkerTokens } from "./worker-tokens";
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
      {/* one column no wider than the window: a long path or a wide table scrolls inside its panel */}
      <div className="grid grid-cols-[minmax(0,1fr)] gap-6">
        <HealthPanel />
        <ChecksPanel />
        <WorkersPanel isAdmin={isAdmin} />
        <ModelPrices isAdmin={isAdmin} />
        {isAdmin ? <WorkerTokens /> : null}
        {isAdmin ? <ViewerLinks /> : null}
        {isAdmin ? <BrowserSessions /> : null}
        <RecentEventsPanel />
      </div>
    </>
  );
}
