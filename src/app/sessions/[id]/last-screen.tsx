"use client";
import { useQuery } from "@tanstack/react-query";
import type { SessionView } from "../../../shared/session-schemas";
import { QueryState } from "../../_components/query-state";
import { Panel } from "../../_components/ui";
import { useTRPC } from "../../_lib/trpc";

/** What the session's terminal showed when it ended, read-only (its saved screen, scrollback included). */
export function LastScreen({ session }: { session: SessionView }) {
  const trpc = useTRPC();
  const screen = useQuery(trpc.sessions.lastScreen.queryOptions({ sessionId: session.id }));
  return (
    <Panel title="Last screen">
      <QueryState
        query={screen}
        loading="Reading the last screen…"
        errorPrefix="Could not read the last screen"
        compact
      >
        {(data) =>
          data && data.lines.length > 0 ? (
            <pre
              data-testid="last-screen"
              aria-label="The terminal's last screen"
              tabIndex={0}
              className="max-h-[60vh] overflow-auto rounded-md bg-[#0b0d12] p-3 font-mono text-xs leading-snug text-[#e6e6e6]"
            >
              {data.lines.join("\n")}
            </pre>
          ) : (
            <p className="text-sm text-muted">This session&apos;s terminal showed nothing before it ended.</p>
          )
        }
      </QueryState>
    </Panel>
  );
}
