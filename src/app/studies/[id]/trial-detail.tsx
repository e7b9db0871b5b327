"use client";
import { configurationDescription } from "../../../shared/configuration-label";
import { useState } from "react";
import type { RetryConfigurationEdit } from "../../../shared/study-inputs";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { describeVerdict } from "../../../shared/trial-outcome";
import { RETRYABLE_TRIAL_STATES } from "../../../shared/vocabulary";
import { dangerBoxClass, focusRing, secondaryButtonClass, smallButtonClass } from "../../_components/ui";
import { TrialOutcomeBadge } from "../state-badge";
import { verdictLevelLabel, verdictTextStyle } from "../verdict-style";
import { KeepResultActions } from "./keep-result-actions";
import type { LogTails } from "./log-tails";
import { TrialAttempts } from "./trial-attempts";
import { TrialFacts } from "./trial-facts";
import { TrialManifestSection } from "./trial-manifest";
import { TrialLog } from "./trial-log";
import { TrialRetryForm } from "./trial-retry-form";
import { trialLabel } from "./trial-row";
import { TrialTests } from "./trial-tests";
import { configurationName } from "../../../shared/domain-names";

export interface TrialRetryProps {
  canRetry: boolean;
  retrying: boolean;
  /** The number a configuration edited on retry would get. */
  nextChoice: number;
  onRetry: (trialIds: string[], edit?: RetryConfigurationEdit) => void;
}

/** How the run ended and, apart from it, what the tests said. */
function OutcomeLine({ trial }: { trial: TrialView }) {
  return (
    <p className="mt-1 flex flex-wrap items-center gap-2 text-sm" data-testid="trial-outcome">
      <TrialOutcomeBadge trial={trial} />
      {trial.verdict ? (
        <>
          <span className="font-medium" style={verdictTextStyle(trial.verdict)}>
            {describeVerdict(trial.verdict)}
          </span>
          <span className="text-xs text-muted">({verdictLevelLabel(trial.verdict)})</span>
        </>
      ) : trial.outcome ? (
        <span className="text-muted">no verdict</span>
      ) : null}
    </p>
  );
}

/** Which trial, with which configuration, how it ended; Retry… and Close. */
function DetailHeader({
  trial,
  configuration,
  onRetry,
  onClose,
}: {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  onRetry: (() => void) | null;
  onClose: () => void;
}) {
  return (
    <div className="mb-4 flex flex-wrap items-start justify-between gap-4">
      <div>
        <h3 className="text-sm font-semibold">
          Trial {trialLabel(trial)}
          <span className="ml-2 font-normal text-muted">
            {configurationName(trial.choice)}
            {configuration ? ` · ${configuration.label}` : ""}
            {trial.attempt > 1 ? ` · attempt ${trial.attempt}` : ""}
          </span>
        </h3>
        <OutcomeLine trial={trial} />
        {configuration?.command ? (
          <code className="mt-1 block font-mono text-xs break-all">{configuration.command}</code>
        ) : configuration ? (
          <p className="mt-1 text-xs text-muted">{configurationDescription(configuration)}</p>
        ) : null}
        {configuration?.instructions ? (
          <p className="mt-1 whitespace-pre-wrap text-xs text-muted">Instructions: {configuration.instructions}</p>
        ) : null}
      </div>
      <div className="flex gap-2">
        {onRetry ? (
          <button type="button" className={smallButtonClass} onClick={onRetry}>
            Retry…
          </button>
        ) : null}
        <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}

/** One trial in full: outcome, verdict, actions, facts, earlier attempts, per-test results (failed first) and its live log. */
export function TrialDetail({
  studyId,
  trial,
  configuration,
  tails,
  onClose,
  retry,
}: {
  studyId: string;
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  tails: LogTails;
  onClose: () => void;
  retry: TrialRetryProps;
}) {
  const [retrying, setRetrying] = useState(false);
  const retryable = retry.canRetry && RETRYABLE_TRIAL_STATES.includes(trial.state);
  return (
    <section
      aria-label={`Trial ${trialLabel(trial)}`}
      data-testid="trial-detail"
      data-trial-id={trial.id}
      tabIndex={-1}
      className={`my-2 rounded-lg border border-line bg-canvas/60 p-4 ${focusRing}`}
    >
      <DetailHeader
        trial={trial}
        configuration={configuration}
        onRetry={retryable && !retrying ? () => setRetrying(true) : null}
        onClose={onClose}
      />
      <div className="mb-4">
        <KeepResultActions studyId={studyId} trialId={trial.id} reviewHref={`/studies/${studyId}/trials/${trial.id}`} />
      </div>
      {retryable && retrying ? (
        <TrialRetryForm
          trial={trial}
          configuration={configuration}
          nextChoice={retry.nextChoice}
          retrying={retry.retrying}
          onRetry={(edit) => {
            retry.onRetry([trial.id], edit);
            setRetrying(false);
          }}
          onCancel={() => setRetrying(false)}
        />
      ) : null}
      {trial.error ? (
        <div role="alert" data-testid="trial-error" className={`mb-4 whitespace-pre-wrap ${dangerBoxClass}`}>
          {trial.error}
        </div>
      ) : null}
      <TrialFacts studyId={studyId} trial={trial} />
      <TrialManifestSection studyId={studyId} trial={trial} />
      <TrialAttempts trial={trial} configuration={configuration} />
      <TrialTests trial={trial} />

      <TrialLog trialId={trial.id} attempt={trial.attempt} tails={tails} />
    </section>
  );
}
