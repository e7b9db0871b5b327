"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useCallback, useMemo, useState } from "react";
import { trialHasTokens } from "../../../shared/study-aggregates";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { Panel } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useSocketConnected } from "../../_lib/socket";
import { useTRPC } from "../../_lib/trpc";
import { StudyProgress } from "../study-progress";
import { AggregatesTable } from "./aggregates-table";
import { PreflightPanel } from "./preflight-panel";
import type { ChartPoint } from "./study-chart";
import { StudyHeader } from "./study-header";
import { TrialDetail } from "./trial-detail";
import { trialLabel } from "./trial-row";
import { TrialsTable } from "./trials-table";
import { useStudyLive } from "./use-study-live";

// recharts measures the DOM: render it in the browser only
const StudyChart = dynamic(() => import("./study-chart").then((module) => module.StudyChart), {
  ssr: false,
  loading: () => <div className="h-72" aria-hidden="true" />,
});

export default function StudyPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { isAdmin } = useRole();
  const connected = useSocketConnected();
  const study = useQuery(
    trpc.studies.get.queryOptions({ studyId: id }, { refetchInterval: connected ? false : 5_000 }),
  );
  const tails = useStudyLive(id);
  const [openTrialId, setOpenTrialId] = useState<string | null>(null);

  const store = useCallback(
    (next: StudyView) => queryClient.setQueryData(trpc.studies.get.queryKey({ studyId: id }), next),
    [queryClient, trpc, id],
  );
  const stop = useMutation(trpc.studies.stop.mutationOptions({ onSuccess: store }));
  const retry = useMutation(trpc.studies.retry.mutationOptions({ onSuccess: store }));
  const onOpen = useCallback(
    (trialId: string) => setOpenTrialId((current) => (current === trialId ? null : trialId)),
    [],
  );
  const onRetry = useCallback((trialIds: string[]) => retry.mutate({ studyId: id, trialIds }), [retry, id]);

  const data = study.data;
  const points = useMemo<ChartPoint[]>(
    () =>
      [...(data?.trials ?? [])]
        .sort((a, b) => a.choice - b.choice || a.repeat - b.repeat)
        .map((trial) => ({
          label: trialLabel(trial),
          tokens: trialHasTokens(trial) ? trial.tokens.total : null,
          seconds: trial.agentSeconds,
        })),
    [data?.trials],
  );
  const configurations = data?.configurations;
  const renderDetail = useCallback(
    (trial: TrialView) => (
      <TrialDetail
        trial={trial}
        configuration={configurations?.find((configuration) => configuration.choice === trial.choice)}
        tails={tails}
        onClose={() => setOpenTrialId(null)}
      />
    ),
    [configurations, tails],
  );

  if (study.isPending) return <p className="text-muted">Loading study…</p>;
  if (study.error || !data) {
    return (
      <p role="alert" className="text-red-400">
        {study.error ? describeError(study.error).message : "No such study."}{" "}
        <Link href="/studies" className="text-accent underline">
          All studies
        </Link>
      </p>
    );
  }

  const canStop = isAdmin && (data.state === "preflight" || data.state === "running");
  const canDelete = isAdmin && (data.state === "done" || data.state === "stopped" || data.state === "refused");
  const hasMeasurements = points.some((point) => point.tokens !== null || point.seconds !== null);
  return (
    <>
      <StudyHeader
        study={data}
        canStop={canStop}
        canDelete={canDelete}
        stopping={stop.isPending || data.state === "stopping"}
        onStop={() => stop.mutate({ studyId: id })}
        stopError={stop.error ? describeError(stop.error).message : null}
      />
      <PreflightPanel study={data} />
      <Panel title="Trials">
        <div className="mb-4 max-w-xl">
          <StudyProgress counts={data.counts} />
        </div>
        {retry.error ? (
          <p role="alert" className="mb-3 text-sm text-red-400">
            {describeError(retry.error).message}
          </p>
        ) : null}
        <TrialsTable
          trials={data.trials}
          configurations={data.configurations}
          openTrialId={openTrialId}
          onOpen={onOpen}
          canRetry={isAdmin && data.state !== "preflight" && data.state !== "refused"}
          retrying={retry.isPending}
          onRetry={onRetry}
          renderDetail={renderDetail}
        />
      </Panel>
      <AggregatesTable configurations={data.configurations} trials={data.trials} />
      {hasMeasurements ? (
        <Panel title="Tokens and agent seconds per trial" className="mt-6">
          <StudyChart points={points} />
        </Panel>
      ) : null}
    </>
  );
}
