"use client";
import { memo, type KeyboardEvent } from "react";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { ACTIVE_TRIAL_STATES } from "../../../shared/vocabulary";
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
import { trialName, trialNumber } from "../../../shared/domain-names";

export interface TrialRowProps {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  showRepeat: boolean;
  showSelect: boolean;
  /** It can be ticked (for Retry or Send feedback). */
  selectable: boolean;
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
  selectable,
  open,
  checked,
  onOpen,
  onCheck,
  rowIndex,
}: TrialRowProps) {
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
      data-number={trialLabel(trial)}
      data-parent-trial-id={trial.parentTrialId ?? undefined}
      aria-rowindex={rowIndex}
      tabIndex={0}
      aria-expanded={open}
      aria-label={`Trial ${trialLabel(trial)}: ${outcomeLabel(trial)}, tests ${verdict}${trial.verdict ? ` (${verdictLevelLabel(trial.verdict)})` : ""}`}
      onClick={() => onOpen(trial.id)}
      onKeyDown={onKeyDown}
      className={`cursor-pointer border-t border-line align-top hover:bg-line/40 ${open ? "bg-line/60" : ""} ${focusRing} focus-visible:-outline-offset-2`}
    >
      {showSelect ? <SelectCell trial={trial} selectable={selectable} checked={checked} onCheck={onCheck} /> : null}
      {/* a follow-up shows its whole number ("1.2.1"): its configuration and repeat are its parent's, the row above */}
      <td className="px-2 py-2 whitespace-nowrap tabular-nums">
        {trial.parentTrialId ? trialNumber(trial) : trial.choice}
      </td>
      {showRepeat ? <td className="px-2 py-2 tabular-nums">{trial.parentTrialId ? "" : trial.repeat}</td> : null}
      <td
        className={`min-w-32 max-w-64 py-2 pr-2 text-xs break-words ${trial.parentTrialId ? "pl-6" : "pl-2"}`}
        title={configuration ? configurationDescription(configuration) : undefined}
        data-testid="trial-configuration"
      >
        {trial.parentTrialId ? <FollowUpOf trial={trial} /> : (configuration?.label ?? "—")}
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

function SelectCell({
  trial,
  selectable,
  checked,
  onCheck,
}: {
  trial: TrialView;
  selectable: boolean;
  checked: boolean;
  onCheck: (trialId: string, checked: boolean) => void;
}) {
  return (
    <td className="px-2 py-2" onClick={(event) => event.stopPropagation()}>
      {selectable ? (
        <input
          type="checkbox"
          aria-label={`Select Trial ${trialLabel(trial)}`}
          checked={checked}
          onChange={(event) => onCheck(trial.id, event.target.checked)}
          className="accent-accent"
        />
      ) : null}
    </td>
  );
}

/** A follow-up's place under its parent ("↳ follow-up of Trial 3.2") and its feedback, folded. */
function FollowUpOf({ trial }: { trial: TrialView }) {
  const parent = trialName({ ...trial, followUpPath: trial.followUpPath.slice(0, -1) });
  return (
    <div data-testid="trial-follow-up-of">
      <span aria-hidden="true">↳ </span>
      follow-up of {parent}
      {trial.feedback ? (
        <details className="mt-0.5 text-muted" onClick={(event) => event.stopPropagation()}>
          <summary className={`cursor-pointer ${focusRing}`}>Feedback</summary>
          <p className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap">{trial.feedback}</p>
        </details>
      ) : null}
    </div>
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
