"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useCallback, useMemo, useState } from "react";
import { trialHasTokens } from "../../../shared/study-aggregates";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { ErrorMessage, Panel } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { StudyProgress } from "../study-progress";
import { AggregatesTable } from "./aggregates-table";
import type { LogTails } from "./log-tails";
import { PreflightPanel } from "./preflight-panel";
import type { ChartPoint } from "./study-chart";
import { StudyHeader } from "./study-header";
import { TrialDetail } from "./trial-detail";
import { trialLabel } from "./trial-row";
import { TrialsTable } from "./trials-table";

// recharts measures the DOM: render it in the browser only
const StudyChart = dynamic(() => import("./study-chart").then((module) => module.StudyChart), {
  ssr: false,
  loading: () => <div className="h-72" aria-hidden="true" />,
});

/** Stores a study that stop or retry answered with as the page's data. */
function useStoreStudy(studyId: string): (next: StudyView) => void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(
    (next: StudyView) => queryClient.setQueryData(trpc.studies.get.queryKey({ studyId }), next),
    [queryClient, trpc, studyId],
  );
}

/** One bar pair per trial, in choice.repeat order. */
function useChartPoints(trials: readonly TrialView[]): ChartPoint[] {
  return useMemo(
    () =>
      [...trials]
        .sort((a, b) => a.choice - b.choice || a.repeat - b.repeat)
        .map((trial) => ({
          label: trialLabel(trial),
          tokens: trialHasTokens(trial) ? trial.tokens.total : null,
          seconds: trial.agentSeconds,
        })),
    [trials],
  );
}

function TrialsPanel({ study, tails, isAdmin }: { study: StudyView; tails: LogTails; isAdmin: boolean }) {
  const trpc = useTRPC();
  const store = useStoreStudy(study.id);
  const retry = useMutation(trpc.studies.retry.mutationOptions({ onSuccess: store }));
  const [openTrialId, setOpenTrialId] = useState<string | null>(null);
  const onOpen = useCallback(
    (trialId: string) => setOpenTrialId((current) => (current === trialId ? null : trialId)),
    [],
  );
  const onRetry = useCallback((trialIds: string[]) => retry.mutate({ studyId: study.id, trialIds }), [retry, study.id]);
  const configurations = study.configurations;
  const renderDetail = useCallback(
    (trial: TrialView) => (
      <TrialDetail
        trial={trial}
        configuration={configurations.find((configuration) => configuration.choice === trial.choice)}
        tails={tails}
        onClose={() => setOpenTrialId(null)}
      />
    ),
    [configurations, tails],
  );
  return (
    <Panel title="Trials">
      <div className="mb-4 max-w-xl">
        <StudyProgress counts={study.counts} />
      </div>
      {retry.error ? <ErrorMessage className="mb-3 text-sm">{describeError(retry.error).message}</ErrorMessage> : null}
      <TrialsTable
        trials={study.trials}
        configurations={study.configurations}
        openTrialId={openTrialId}
        onOpen={onOpen}
        canRetry={isAdmin && study.state !== "preflight" && study.state !== "refused"}
        retrying={retry.isPending}
        onRetry={onRetry}
        renderDetail={renderDetail}
      />
    </Panel>
  );
}

/** A loaded study: header, preflight, trials with their details, per-configuration aggregates and a chart. */
export function StudyDetail({ study, tails }: { study: StudyView; tails: LogTails }) {
  const { isAdmin } = useRole();
  const trpc = useTRPC();
  const store = useStoreStudy(study.id);
  const stop = useMutation(trpc.studies.stop.mutationOptions({ onSuccess: store }));
  const points = useChartPoints(study.trials);
  const canStop = isAdmin && (study.state === "preflight" || study.state === "running");
  const canDelete = isAdmin && (study.state === "done" || study.state === "stopped" || study.state === "refused");
  const hasMeasurements = points.some((point) => point.tokens !== null || point.seconds !== null);
  return (
    <>
      <StudyHeader
        study={study}
        canStop={canStop}
        canDelete={canDelete}
        stopping={stop.isPending || study.state === "stopping"}
        onStop={() => stop.mutate({ studyId: study.id })}
        stopError={stop.error ? describeError(stop.error).message : null}
      />
      <PreflightPanel study={study} />
      <TrialsPanel study={study} tails={tails} isAdmin={isAdmin} />
      <AggregatesTable configurations={study.configurations} trials={study.trials} />
      {hasMeasurements ? (
        <Panel title="Tokens and agent seconds per trial" className="mt-6">
          <StudyChart points={points} />
        </Panel>
      ) : null}
    </>
  );
}
