"use client";
import { useParams } from "next/navigation";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { dangerBoxClass, focusRing, secondaryButtonClass } from "../../_components/ui";
import { KeepResultActions } from "./keep-result-actions";
import type { LogTails } from "./log-tails";
import { TrialFacts } from "./trial-facts";
import { TrialLog } from "./trial-log";
import { trialLabel } from "./trial-row";
import { TrialTests } from "./trial-tests";

/** One trial in full: outcome, diff, thread, per-test results (failed first) and its live log. */
export function TrialDetail({
  trial,
  configuration,
  tails,
  onClose,
}: {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  tails: LogTails;
  onClose: () => void;
}) {
  const { id: studyId } = useParams<{ id: string }>();
  return (
    <section
      aria-label={`Trial ${trialLabel(trial)}`}
      data-testid="trial-detail"
      data-trial-id={trial.id}
      className="my-2 rounded-lg border border-line bg-canvas/60 p-4"
    >
      <div className="mb-4 flex items-start justify-between gap-4">
        <div>
          <h3 className="text-sm font-semibold">Trial {trialLabel(trial)}</h3>
          <p className="text-sm text-muted">
            {configuration
              ? `${configuration.harness} · ${configuration.model} · ${configuration.reasoningEffort}`
              : null}
            {configuration?.command ? <code className="ml-2 font-mono text-xs">{configuration.command}</code> : null}
            {configuration?.instructions ? (
              <span className="mt-1 block whitespace-pre-wrap text-xs">Instructions: {configuration.instructions}</span>
            ) : null}
          </p>
        </div>
        <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onClose}>
          Close
        </button>
      </div>
      <div className="mb-4">
        <KeepResultActions studyId={studyId} trialId={trial.id} />
      </div>
      {trial.error ? (
        <div role="alert" data-testid="trial-error" className={`mb-4 whitespace-pre-wrap ${dangerBoxClass}`}>
          {trial.error}
        </div>
      ) : null}
      <TrialFacts trial={trial} />
      <TrialTests trial={trial} />

      <TrialLog trialId={trial.id} attempt={trial.attempt} tails={tails} />
    </section>
  );
}
