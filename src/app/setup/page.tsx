"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { QueryState } from "../_components/query-state";
import { PageHeader, Panel, secondaryButtonClass, warnBoxClass } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { useTRPC } from "../_lib/trpc";
import { ModelAccessPanel } from "./model-access-panel";
import { SetupChecklist } from "./setup-checklist";
import { skipSetup } from "./setup-skip";
import { TryDemo } from "../projects/try-demo";

/**
 * The setup checklist: the doctor's checks, the base image and model access, checked again every few
 * seconds, each with its fix; model access per provider with its key form. The dashboard opens here while something is missing.
 */
export default function SetupPage() {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const status = useQuery({ ...trpc.setup.status.queryOptions(), refetchInterval: 5_000 });

  return (
    <>
      <PageHeader
        title="Setup"
        description="What invariant-web needs on this host, checked live. Fix what is missing; this page updates by itself."
        actions={
          <button type="button" className={secondaryButtonClass} onClick={() => void status.refetch()}>
            {status.isFetching ? "Checking…" : "Check again"}
          </button>
        }
      />
      <QueryState query={status} loading="Running the checks…" errorPrefix="Could not run the checks">
        {(data) => (
          // one track that may shrink below its content's widest word (a long path): text wraps, the page never widens
          <div className="grid grid-cols-[minmax(0,1fr)] gap-6">
            <div
              role="status"
              className={data.needed ? warnBoxClass : "rounded-md border border-line p-3 text-sm text-ok"}
            >
              {data.needed
                ? "Something studies need is missing: see the fixes below."
                : "Everything studies need is in place."}{" "}
              <Link href="/projects" className="underline" onClick={skipSetup}>
                {data.needed ? "Continue to projects anyway" : "Go to projects"}
              </Link>
            </div>
            <Panel title="Checklist">
              <SetupChecklist checks={data.checks} isAdmin={isAdmin} />
            </Panel>
            {isAdmin ? (
              <Panel title="Try it first">
                <p className="text-sm text-muted">
                  The demo needs no model access: a calendar task, three configurations and 23 checks, on the bundled
                  scripted model when no key is set. It makes a project of its own.
                </p>
                <TryDemo />
              </Panel>
            ) : null}
            <ModelAccessPanel status={data} isAdmin={isAdmin} />
          </div>
        )}
      </QueryState>
    </>
  );
}
