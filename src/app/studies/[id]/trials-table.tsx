"use client";
import { Fragment, useCallback, useMemo, useState, type ReactNode } from "react";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { RETRYABLE_TRIAL_STATES, TRIAL_STATES } from "../../../shared/vocabulary";
import { trialHasTokens } from "../../../shared/study-aggregates";
import { buttonClass } from "../../_components/ui";
import { EFFORTS } from "../new/form-model";
import { focusRing, verdictScore } from "../study-format";
import { TrialRow } from "./trial-row";

type SortKey = "choice" | "repeat" | "harness" | "model" | "effort" | "tests" | "seconds" | "tokens" | "state";
interface Sort {
  key: SortKey;
  dir: 1 | -1;
}

type Configurations = ReadonlyMap<number, ConfigurationView>;

/** Sort values; `null` (nothing measured) always sorts last. */
function sortValue(key: SortKey, trial: TrialView, configurations: Configurations): number | string | null {
  const configuration = configurations.get(trial.choice);
  switch (key) {
    case "choice":
      return trial.choice * 1000 + trial.repeat;
    case "repeat":
      return trial.repeat;
    case "harness":
      return configuration?.harness ?? null;
    case "model":
      return configuration?.model ?? null;
    case "effort":
      return configuration ? EFFORTS.indexOf(configuration.reasoningEffort) : null;
    case "tests":
      return trial.verdict ? verdictScore(trial.verdict) : null;
    case "seconds":
      return trial.agentSeconds;
    case "tokens":
      return trialHasTokens(trial) ? trial.tokens.total : null;
    case "state":
      return TRIAL_STATES.indexOf(trial.state);
  }
}

function sortTrials(trials: readonly TrialView[], configurations: Configurations, sort: Sort): TrialView[] {
  const order = (trial: TrialView) => trial.choice * 1000 + trial.repeat;
  return [...trials].sort((a, b) => {
    const x = sortValue(sort.key, a, configurations);
    const y = sortValue(sort.key, b, configurations);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      const compared = typeof x === "string" || typeof y === "string" ? String(x).localeCompare(String(y)) : x - y;
      if (compared !== 0) return compared * sort.dir;
    }
    return order(a) - order(b);
  });
}

const columns: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: "choice", label: "Choice" },
  { key: "repeat", label: "Repeat" },
  { key: "harness", label: "Harness" },
  { key: "model", label: "Model" },
  { key: "effort", label: "Effort" },
  { key: "tests", label: "Tests passed" },
  { key: "seconds", label: "Agent seconds", numeric: true },
  { key: "tokens", label: "Tokens", numeric: true },
  { key: "state", label: "State" },
];

/** The results table: one row per trial, sortable by any column; admins pick retryable trials to run again. */
export function TrialsTable({
  trials,
  configurations,
  openTrialId,
  onOpen,
  canRetry,
  retrying,
  onRetry,
  renderDetail,
}: {
  trials: readonly TrialView[];
  configurations: readonly ConfigurationView[];
  openTrialId: string | null;
  onOpen: (trialId: string) => void;
  canRetry: boolean;
  retrying: boolean;
  onRetry: (trialIds: string[]) => void;
  /** The open trial's detail, shown in a full-width row right below it. */
  renderDetail: (trial: TrialView) => ReactNode;
}) {
  const [sort, setSort] = useState<Sort>({ key: "choice", dir: 1 });
  const [checkedIds, setCheckedIds] = useState<ReadonlySet<string>>(() => new Set());
  const byChoice = useMemo(
    () => new Map(configurations.map((configuration) => [configuration.choice, configuration])),
    [configurations],
  );
  const sorted = useMemo(() => sortTrials(trials, byChoice, sort), [trials, byChoice, sort]);
  const showRepeat = configurations.some((configuration) => configuration.repeats > 1);
  const retryable = useMemo(
    () => new Set(trials.filter((trial) => RETRYABLE_TRIAL_STATES.includes(trial.state)).map((trial) => trial.id)),
    [trials],
  );
  const selected = [...checkedIds].filter((id) => retryable.has(id));
  const showSelect = canRetry && retryable.size > 0;
  const columnCount = columns.length - (showRepeat ? 0 : 1) + (showSelect ? 1 : 0);

  const onCheck = useCallback((trialId: string, checked: boolean) => {
    setCheckedIds((current) => {
      const next = new Set(current);
      if (checked) next.add(trialId);
      else next.delete(trialId);
      return next;
    });
  }, []);
  const toggleSort = (key: SortKey) =>
    setSort((current) => (current.key === key ? { key, dir: current.dir === 1 ? -1 : 1 } : { key, dir: 1 }));
  const retry = () => {
    onRetry(selected);
    setCheckedIds(new Set());
  };

  return (
    <div>
      {showSelect ? (
        <div className="mb-3 flex flex-wrap items-center gap-3">
          <button
            type="button"
            className={`${buttonClass} ${focusRing}`}
            disabled={selected.length === 0 || retrying}
            onClick={retry}
          >
            {retrying ? "Retrying…" : `Retry selected${selected.length > 0 ? ` (${selected.length})` : ""}`}
          </button>
          <button
            type="button"
            className={`text-xs text-accent underline ${focusRing}`}
            onClick={() => setCheckedIds(new Set(retryable))}
          >
            Select all retryable ({retryable.size})
          </button>
        </div>
      ) : null}
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" aria-label="Trials">
          <thead className="text-xs uppercase text-muted">
            <tr>
              {showSelect ? (
                <th className="px-2 py-2">
                  <span className="sr-only">Retry</span>
                </th>
              ) : null}
              {columns
                .filter((column) => column.key !== "repeat" || showRepeat)
                .map((column) => {
                  const active = sort.key === column.key;
                  return (
                    <th
                      key={column.key}
                      className={`px-2 py-2 ${column.numeric ? "text-right" : ""}`}
                      aria-sort={active ? (sort.dir === 1 ? "ascending" : "descending") : "none"}
                    >
                      <button
                        type="button"
                        className={`uppercase hover:text-ink ${active ? "text-ink" : ""} ${focusRing}`}
                        onClick={() => toggleSort(column.key)}
                      >
                        {column.label}
                        <span aria-hidden="true" className="ml-1 inline-block w-2">
                          {active ? (sort.dir === 1 ? "▲" : "▼") : ""}
                        </span>
                      </button>
                    </th>
                  );
                })}
            </tr>
          </thead>
          <tbody>
            {sorted.map((trial) => (
              <Fragment key={trial.id}>
                <TrialRow
                  trial={trial}
                  configuration={byChoice.get(trial.choice)}
                  showRepeat={showRepeat}
                  showSelect={showSelect}
                  open={trial.id === openTrialId}
                  checked={checkedIds.has(trial.id)}
                  onOpen={onOpen}
                  onCheck={onCheck}
                />
                {trial.id === openTrialId ? (
                  <tr data-testid="trial-detail-row">
                    <td colSpan={columnCount}>{renderDetail(trial)}</td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      {trials.length === 0 ? <p className="mt-2 text-sm text-muted">No trials.</p> : null}
    </div>
  );
}
