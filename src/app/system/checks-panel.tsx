"use client";
import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../_components/query-state";
import { Panel, secondaryButtonClass } from "../_components/ui";
import { useTRPC } from "../_lib/trpc";

const statusStyle = { ok: "text-ok", warn: "text-warn-soft", fail: "text-danger" } as const;
const statusMark = { ok: "✓", warn: "!", fail: "✗" } as const;

/** The host checks (`invariant-web doctor`), with their fixes; run again on demand. */
export function ChecksPanel() {
  const trpc = useTRPC();
  const doctor = useQuery(trpc.system.doctor.queryOptions());
  return (
    <Panel title="Checks">
      <QueryState query={doctor} loading="Running checks…" errorPrefix="Could not run the checks" compact>
        {(data) => (
          <ul className="grid gap-2" aria-label="Checks">
            {data.checks.map((check) => (
              <li key={check.id} className="text-sm">
                <span className={`mr-2 font-mono ${statusStyle[check.status]}`}>{statusMark[check.status]}</span>
                <span className="font-medium">{check.title}</span> <span className="text-muted">{check.detail}</span>
                {check.fix ? <p className="ml-6 text-xs text-warn-ink">Fix: {check.fix}</p> : null}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <button type="button" className={`${secondaryButtonClass} mt-3`} onClick={() => void doctor.refetch()}>
        Check again
      </button>
    </Panel>
  );
}
