"use client";
import { useQuery } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import Link from "next/link";
import { focusRing } from "../_components/ui";
import { useTRPC } from "../_lib/trpc";

/** "continues Trial 2.1 · gpt-5 · low of Calendar fix": the trial a continue-a-result session started from, as a link. */
export function ContinuedTrialLink({ trialId }: { trialId: string }) {
  const trpc = useTRPC();
  const summary = useQuery({ ...trpc.review.summary.queryOptions({ trialId }), staleTime: 60_000, retry: false });
  if (summary.isError) {
    const code =
      summary.error instanceof TRPCClientError ? (summary.error.data as { code?: string } | undefined)?.code : null;
    const gone = code === "NOT_FOUND";
    return <> · continues {gone ? "a trial that was deleted since" : "a trial"}</>;
  }
  if (!summary.data) return <> · continues a trial</>;
  const { studyId, configuration } = summary.data;
  return (
    <>
      {" · continues "}
      <Link
        href={`/studies/${studyId}/trials/${trialId}`}
        className={`underline ${focusRing}`}
        data-testid="continued-trial"
      >
        {configuration.label}
      </Link>
    </>
  );
}
