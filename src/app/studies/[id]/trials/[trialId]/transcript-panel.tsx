"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { QueryState } from "../../../../_components/query-state";
import { inputClass } from "../../../../_components/ui";
import { useTRPC } from "../../../../_lib/trpc";
import { TranscriptEntry } from "./transcript-items";

/** What the agent did, as a timeline from the trial's recorded events; live while the trial runs. */
export function TranscriptPanel({ trialId, attempts }: { trialId: string; attempts: number }) {
  const trpc = useTRPC();
  const [attempt, setAttempt] = useState<number | null>(null);
  const current = attempt ?? attempts;
  const transcript = useQuery(
    trpc.review.transcript.queryOptions(attempt === null ? { trialId } : { trialId, attempt }),
  );
  return (
    <section aria-label="Transcript" className="flex min-h-0 flex-col">
      {attempts > 1 ? (
        <label className="mb-2 flex items-center gap-2 text-xs text-muted">
          Attempt
          <select
            className={`${inputClass} w-auto py-1`}
            value={current}
            onChange={(event) => {
              const value = Number(event.target.value);
              setAttempt(value === attempts ? null : value);
            }}
          >
            {Array.from({ length: attempts }, (_, index) => attempts - index).map((value) => (
              <option key={value} value={value}>
                {value}
                {value === attempts ? " (latest)" : ""}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <QueryState
        query={transcript}
        loading="Loading the transcript…"
        errorPrefix="Could not load the transcript"
        isEmpty={(data) => data.items.length === 0}
        empty={<p className="text-sm text-muted">Nothing recorded yet: events appear here as the trial runs.</p>}
        compact
      >
        {(data) => (
          <>
            <ol className="min-h-0 overflow-auto" data-testid="transcript-items">
              {data.items.map((item, index) => (
                <TranscriptEntry key={`${index}:${item.kind}`} item={item} />
              ))}
            </ol>
            {data.live ? (
              <p className="mt-2 text-xs text-muted">The trial is running: new events appear live.</p>
            ) : null}
          </>
        )}
      </QueryState>
    </section>
  );
}
