"use client";
import { memo, type KeyboardEvent } from "react";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { ACTIVE_TRIAL_STATES, RETRYABLE_TRIAL_STATES } from "../../../shared/vocabulary";
import { trialHasTokens } from "../../../shared/study-aggregates";
import { capturedChangesText } from "../../../shared/captured-files";
import { testSteeringHeadline } from "../../../shared/test-steering";
import { testsMissingExplanation, testsMissingText } from "../../../shared/test-integrity";
import { TrialOutcomeBadge } from "../state-badge";
import { formatCount, formatSeconds, formatVerdict } from "../study-format";
import { AppliedTrialMarker } from "./applied-undo";
import { ChosenTrialMarker } from "./chosen-result";
import { Elapsed } from "./elapsed";
import { outcomeLabel, verdictLevelLabel, verdictTextStyle } from "../verdict-style";
import { focusRing } from "../../_components/ui";
import { PINNED_COLUMN } from "./trial-sort";
import { configurationDescription } from "../../../shared/configuration-label";
import { trialNumber } from "../../../shared/domain-names";

export interface TrialRowProps {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  showRepeat: boolean;
  showSelect: boolean;
  open: boolean;
  checked: boolean;
  onOpen: (trialId: string) => void;
  onCheck: (trialId: string, checked: boolean) => void;
  /** Its position among the table's rows (the header is 1), for a table that renders only some of them. */
  rowIndex?: number;
}

export const trialLabel = trialNumber;

/** One trial of the results table; memoized so a refetch re-renders only the rows that changed. */
export const TrialRow = memo(function TrialRow({
  trial,
  configuration,
  showRepeat,
  showSelect,
  open,
  checked,
  onOpen,
  onCheck,
  rowIndex,
}: TrialRowProps) {
  const retryable = RETRYABLE_TRIAL_STATES.includes(trial.state);
  const verdict = formatVerdict(trial.verdict);
  const onKeyDown = (event: KeyboardEvent<HTMLTableRowElement>) => {
    if (event.target !== event.currentTarget) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onOpen(trial.id);
    }
  };
  return (
    <tr
      data-testid="trial-row"
      data-choice={trial.choice}
      data-repeat={trial.repeat}
      data-state={trial.state}
      data-outcome={trial.outcome ?? undefined}
      data-trial-id={trial.id}
      aria-rowindex={rowIndex}
      tabIndex={0}
      aria-expanded={open}
      aria-label={`Trial ${trialLabel(trial)}: ${outcomeLabel(trial)}, tests ${verdict}${trial.verdict ? ` (${verdictLevelLabel(trial.verdict)})` : ""}`}
      onClick={() => onOpen(trial.id)}
      onKeyDown={onKeyDown}
      className={`cursor-pointer border-t border-line align-top hover:bg-line/40 ${open ? "bg-line/60" : ""} ${focusRing} focus-visible:-outline-offset-2`}
    >
      {showSelect ? <RetryCell trial={trial} retryable={retryable} checked={checked} onCheck={onCheck} /> : null}
      <td className="px-2 py-2 tabular-nums">{trial.choice}</td>
      {showRepeat ? <td className="px-2 py-2 tabular-nums">{trial.repeat}</td> : null}
      <td
        className="min-w-32 max-w-64 px-2 py-2 text-xs break-words"
        title={configuration ? configurationDescription(configuration) : undefined}
        data-testid="trial-configuration"
      >
        {configuration?.label ?? "—"}
      </td>
      <VerdictCell trial={trial} verdict={verdict} />
      <td className="px-2 py-2 text-right tabular-nums" data-testid="trial-seconds">
        {formatSeconds(trial.agentSeconds)}
      </td>
      <td className="px-2 py-2 text-right tabular-nums" data-testid="trial-tokens">
        {trialHasTokens(trial) ? formatCount(trial.tokens.total) : "—"}
      </td>
      <TrialStateCell trial={trial} />
    </tr>
  );
});

function RetryCell({
  trial,
  retryable,
  checked,
  onCheck,
}: {
  trial: TrialView;
  retryable: boolean;
  checked: boolean;
  onCheck: (trialId: string, checked: boolean) => void;
}) {
  return (
    <td className="px-2 py-2" onClick={(event) => event.stopPropagation()}>
      {retryable ? (
        <input
          type="checkbox"
          aria-label={`Select trial ${trialLabel(trial)} for retry`}
          checked={checked}
          onChange={(event) => onCheck(trial.id, event.target.checked)}
          className="accent-accent"
        />
      ) : null}
    </td>
  );
}

/** Tests passed, coloured on the verdict scale (red → amber → green), with the level in words beside it. */
function VerdictCell({ trial, verdict }: { trial: TrialView; verdict: string }) {
  return (
    // on a phone the pinned column wraps its warnings, so the configuration beside it stays in view
    <td className={`max-w-40 px-2 py-2 tabular-nums sm:max-w-none sm:whitespace-nowrap ${PINNED_COLUMN}`}>
      <span
        data-testid="trial-tests"
        className={trial.verdict ? "font-medium" : "text-muted"}
        style={verdictTextStyle(trial.verdict)}
      >
        {verdict}
      </span>
      {trial.verdict ? (
        <span className="ml-1.5 text-xs text-muted" data-testid="trial-verdict">
          {verdictLevelLabel(trial.verdict)}
        </span>
      ) : null}
      {trial.capturedChanges && trial.capturedChanges.length > 0 ? (
        <span
          className="ml-1.5 text-xs font-medium text-warn-ink"
          title={`The agent changed captured files (restored before the evaluation): ${capturedChangesText(trial.capturedChanges)}`}
          data-testid="trial-tampered"
        >
          ⚠ files changed
        </span>
      ) : null}
      {trial.testSteering && trial.testSteering.length > 0 ? (
        <span
          className="ml-1.5 text-xs font-medium text-warn-ink"
          title={`Files that steer how the tests run changed (read them in the review before trusting a pass): ${testSteeringHeadline(trial.testSteering)}`}
          data-testid="trial-test-steering"
        >
          ⚠ {trial.testSteering.some((item) => item.shown) ? "test config changed" : "hidden test config"}
        </span>
      ) : null}
      {trial.testsMissing ? (
        <span
          className="ml-1.5 text-xs font-medium text-warn-ink"
          title={testsMissingExplanation(trial.testsMissing)}
          data-testid="trial-tests-missing"
        >
          ⚠ {testsMissingText(trial.testsMissing)}
        </span>
      ) : null}
    </td>
  );
}

/** How the run ended (or where it is), the attempt after the first, and what a running trial is doing for how long. */
function TrialStateCell({ trial }: { trial: TrialView }) {
  const active = ACTIVE_TRIAL_STATES.includes(trial.state);
  return (
    <td className="px-2 py-2" data-testid="trial-state">
      <TrialOutcomeBadge trial={trial} />
      <ChosenTrialMarker trialId={trial.id} />
      <AppliedTrialMarker trialId={trial.id} />
      {trial.attempt > 1 ? <span className="ml-1 text-xs text-muted">attempt {trial.attempt}</span> : null}
      {active ? (
        <span className="mt-0.5 block text-xs text-muted" data-testid="trial-step">
          {trial.step || trial.state} · {trial.commandsRun} command{trial.commandsRun === 1 ? "" : "s"}
          {trial.startedAt ? (
            <>
              {" · "}
              <Elapsed since={trial.startedAt} />
            </>
          ) : null}
        </span>
      ) : null}
    </td>
  );
}
