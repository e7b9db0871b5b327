"use client";
import { useMutation } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useCallback, useMemo } from "react";
import type { RetryConfigurationEdit } from "../../../shared/study-inputs";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { ErrorMessage, Panel } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { AggregatesTable } from "./aggregates-table";
import type { LogTails } from "./log-tails";
import { PreflightPanel } from "./preflight-panel";
import { configurationChartPoints, trialChartPoints } from "./chart-data";
import { StudyHeader } from "./study-header";
import { StudyFactsPanel } from "./study-facts-panel";
import { StudyLead } from "./study-lead";
import { useStoreStudy } from "./use-store-study";
import { TestMatrixPanel } from "./test-matrix-panel";
import { CostPanel } from "./cost-panel";
import { TrialDetail } from "./trial-detail";
import { TrialsTable } from "./trials-table";
import { useOpenTrials } from "./use-open-trials";
import {
  FEEDBACK_STUDY_STATES,
  FINISHED_STUDY_STATES,
  RETRYABLE_STUDY_STATES,
  STOPPABLE_STUDY_STATES,
} from "../../../shared/vocabulary";

// recharts measures the DOM: render it in the browser only
const TestsChart = dynamic(() => import("./study-chart").then((module) => module.TestsChart), {
  ssr: false,
  loading: () => <div className="h-40" aria-hidden="true" />,
});
const UsageChart = dynamic(() => import("./study-chart").then((module) => module.UsageChart), {
  ssr: false,
  loading: () => <div className="h-72" aria-hidden="true" />,
});

function TrialsPanel({ study, tails, isAdmin }: { study: StudyView; tails: LogTails; isAdmin: boolean }) {
  const trpc = useTRPC();
  const store = useStoreStudy(study.id);
  const retry = useMutation(trpc.studies.retry.mutationOptions({ onSuccess: store }));
  const open = useOpenTrials();
  const { mutate } = retry;
  const onRetry = useCallback(
    (trialIds: string[], edit?: RetryConfigurationEdit) =>
      mutate({ studyId: study.id, trialIds, ...(edit ? { configuration: edit } : {}) }),
    [mutate, study.id],
  );
  const configurations = study.configurations;
  const canRetry = isAdmin && RETRYABLE_STUDY_STATES.includes(study.state);
  const retryProps = useMemo(
    () => ({
      canRetry,
      retrying: retry.isPending,
      nextChoice: Math.max(0, ...configurations.map((configuration) => configuration.choice)) + 1,
      onRetry,
    }),
    [canRetry, retry.isPending, configurations, onRetry],
  );
  const { close } = open;
  const renderDetail = useCallback(
    (trial: TrialView) => (
      <TrialDetail
        studyId={study.id}
        trial={trial}
        configuration={configurations.find((configuration) => configuration.choice === trial.choice)}
        tails={tails}
        onClose={() => close(trial.id)}
        retry={retryProps}
      />
    ),
    [study.id, configurations, tails, close, retryProps],
  );
  return (
    <Panel title="Trials">
      {retry.error ? <ErrorMessage className="mb-3 text-sm">{describeError(retry.error).message}</ErrorMessage> : null}
      <TrialsTable
        studyId={study.id}
        canFeedback={isAdmin && FEEDBACK_STUDY_STATES.includes(study.state)}
        trials={study.trials}
        configurations={study.configurations}
        openTrialIds={open.openIds}
        onOpen={open.toggle}
        canRetry={canRetry}
        retrying={retry.isPending}
        onRetry={onRetry}
        renderDetail={renderDetail}
      />
    </Panel>
  );
}

/**
 * A loaded study: the header; what leads (the preflight while it runs or when it refused, the live state,
 * the verdict headline); trials with their details, per-configuration aggregates and charts; then the
 * baseline and the study's frozen facts, folded.
 */
export function StudyDetail({ study, tails }: { study: StudyView; tails: LogTails }) {
  const { isAdmin } = useRole();
  const trpc = useTRPC();
  const store = useStoreStudy(study.id);
  const stop = useMutation(trpc.studies.stop.mutationOptions({ onSuccess: store }));
  const points = useMemo(
    () => trialChartPoints({ trials: study.trials, configurations: study.configurations }),
    [study.trials, study.configurations],
  );
  const byConfiguration = useMemo(
    () => configurationChartPoints({ trials: study.trials, configurations: study.configurations }),
    [study.trials, study.configurations],
  );
  const canStop = isAdmin && STOPPABLE_STUDY_STATES.includes(study.state);
  const canDelete = isAdmin && FINISHED_STUDY_STATES.includes(study.state);
  const hasMeasurements = points.some((point) => point.tokens !== null || point.seconds !== null);
  const preflightLeads = study.state === "preflight" || study.state === "refused";
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
      {preflightLeads ? <PreflightPanel study={study} /> : null}
      <StudyLead study={study} isAdmin={isAdmin} />
      {study.trials.length > 0 ? <TrialsPanel study={study} tails={tails} isAdmin={isAdmin} /> : null}
      {study.counts.total > study.counts.queued + study.counts.running ? (
        <AggregatesTable configurations={study.configurations} trials={study.trials} />
      ) : null}
      {points.some((point) => point.passed !== null) ? (
        <Panel title="Tests passed" className="mt-6">
          <TestsChart trials={points} configurations={byConfiguration} />
        </Panel>
      ) : null}
      <CostPanel study={study} />
      <TestMatrixPanel study={study} />
      {hasMeasurements ? (
        <Panel title="Tokens and agent seconds per trial" className="mt-6">
          <UsageChart points={points} />
        </Panel>
      ) : null}
      {preflightLeads ? null : <PreflightPanel study={study} className="mt-6" />}
      <StudyFactsPanel study={study} />
    </>
  );
}
