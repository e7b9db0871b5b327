"use client";
import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../../../../_components/query-state";
import { useTRPC } from "../../../../_lib/trpc";
import { TrialTests } from "../../trial-tests";

/** The trial's per-test results (failed first), from the study's view of the trial. */
export function TestsPanel({ studyId, trialId }: { studyId: string; trialId: string }) {
  const trpc = useTRPC();
  const study = useQuery(trpc.studies.get.queryOptions({ studyId }));
  return (
    <section aria-label="Tests">
      <QueryState query={study} loading="Loading the tests…" errorPrefix="Could not load the study" compact>
        {(data) => {
          const trial = data.trials.find((candidate) => candidate.id === trialId);
          return trial ? <TrialTests trial={trial} /> : <p className="text-sm text-muted">This trial is gone.</p>;
        }}
      </QueryState>
    </section>
  );
}
