"use client";
import { Fragment, useCallback, useMemo, useState, type ReactNode } from "react";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { RETRYABLE_TRIAL_STATES } from "../../../shared/vocabulary";
import { Table, type TableHeader } from "../../_components/data-table";
import { buttonClass, focusRing } from "../../_components/ui";
import { TrialRow } from "./trial-row";
import { PINNED_COLUMN, sortTrials, trialColumns, type Sort, type SortKey } from "./trial-sort";

/** Which retryable trials an admin ticked; ticks of trials that are no longer retryable do not count. */
function useRetrySelection(trials: readonly TrialView[]) {
  const [checkedIds, setCheckedIds] = useState<ReadonlySet<string>>(() => new Set());
  const retryable = useMemo(
    () => new Set(trials.filter((trial) => RETRYABLE_TRIAL_STATES.includes(trial.state)).map((trial) => trial.id)),
    [trials],
  );
  const onCheck = useCallback((trialId: string, checked: boolean) => {
    setCheckedIds((current) => {
      const next = new Set(current);
      if (checked) next.add(trialId);
      else next.delete(trialId);
      return next;
    });
  }, []);
  return {
    checkedIds,
    retryable,
    selected: [...checkedIds].filter((id) => retryable.has(id)),
    onCheck,
    selectAll: () => setCheckedIds(new Set(retryable)),
    clear: () => setCheckedIds(new Set()),
  };
}

function RetryBar({
  selected,
  retryable,
  retrying,
  onRetry,
  onSelectAll,
}: {
  selected: number;
  retryable: number;
  retrying: boolean;
  onRetry: () => void;
  onSelectAll: () => void;
}) {
  return (
    <div className="mb-3 flex flex-wrap items-center gap-3">
      <button
        type="button"
        className={`${buttonClass} ${focusRing}`}
        disabled={selected === 0 || retrying}
        onClick={onRetry}
      >
        {retrying ? "Retrying…" : `Retry selected${selected > 0 ? ` (${selected})` : ""}`}
      </button>
      <button type="button" className={`text-xs text-accent underline ${focusRing}`} onClick={onSelectAll}>
        Select all retryable ({retryable})
      </button>
    </div>
  );
}

/** Header cells: a sort button per column (▲/▼ on the active one), and the retry checkboxes' column. */
function sortHeaders(options: {
  sort: Sort;
  onSort: (key: SortKey) => void;
  showRepeat: boolean;
  showSelect: boolean;
}): TableHeader[] {
  const { sort, onSort } = options;
  const select: TableHeader = { key: "select", header: <span className="sr-only">Retry</span> };
  const sortable = trialColumns
    .filter((column) => column.key !== "repeat" || options.showRepeat)
    .map((column): TableHeader => {
      const active = sort.key === column.key;
      return {
        key: column.key,
        numeric: column.numeric,
        headerProps: {
          "aria-sort": active ? (sort.dir === 1 ? "ascending" : "descending") : "none",
          // the verdict stays in view while a narrow screen scrolls the table sideways
          ...(column.key === "tests" ? { className: PINNED_COLUMN } : {}),
        },
        header: (
          <button
            type="button"
            className={`whitespace-nowrap uppercase hover:text-ink ${active ? "text-ink" : ""} ${focusRing}`}
            onClick={() => onSort(column.key)}
          >
            {column.label}
            <span aria-hidden="true" className="ml-1 inline-block w-2">
              {active ? (sort.dir === 1 ? "▲" : "▼") : ""}
            </span>
          </button>
        ),
      };
    });
  return options.showSelect ? [select, ...sortable] : sortable;
}

/** The results table: one row per trial, sortable by any column; admins pick retryable trials to run again. */
export function TrialsTable({
  trials,
  configurations,
  openTrialIds,
  onOpen,
  canRetry,
  retrying,
  onRetry,
  renderDetail,
}: {
  trials: readonly TrialView[];
  configurations: readonly ConfigurationView[];
  /** The trials whose detail is open (several can be). */
  openTrialIds: readonly string[];
  onOpen: (trialId: string) => void;
  canRetry: boolean;
  retrying: boolean;
  onRetry: (trialIds: string[]) => void;
  /** An open trial's detail, shown in a full-width row right below it. */
  renderDetail: (trial: TrialView) => ReactNode;
}) {
  const [sort, setSort] = useState<Sort>({ key: "choice", dir: 1 });
  const selection = useRetrySelection(trials);
  const byChoice = useMemo(
    () => new Map(configurations.map((configuration) => [configuration.choice, configuration])),
    [configurations],
  );
  const sorted = useMemo(() => sortTrials(trials, byChoice, sort), [trials, byChoice, sort]);
  const showRepeat = configurations.some((configuration) => configuration.repeats > 1);
  const showSelect = canRetry && selection.retryable.size > 0;
  const onSort = (key: SortKey) =>
    setSort((current) => (current.key === key ? { key, dir: current.dir === 1 ? -1 : 1 } : { key, dir: 1 }));
  const headers = sortHeaders({ sort, onSort, showRepeat, showSelect });

  return (
    <div>
      {showSelect ? (
        <RetryBar
          selected={selection.selected.length}
          retryable={selection.retryable.size}
          retrying={retrying}
          onRetry={() => {
            onRetry(selection.selected);
            selection.clear();
          }}
          onSelectAll={selection.selectAll}
        />
      ) : null}
      <Table label="Trials" wrapperClassName="overflow-x-auto" headers={headers}>
        {sorted.map((trial) => (
          <Fragment key={trial.id}>
            <TrialRow
              trial={trial}
              configuration={byChoice.get(trial.choice)}
              showRepeat={showRepeat}
              showSelect={showSelect}
              open={openTrialIds.includes(trial.id)}
              checked={selection.checkedIds.has(trial.id)}
              onOpen={onOpen}
              onCheck={selection.onCheck}
            />
            {openTrialIds.includes(trial.id) ? (
              <tr data-testid="trial-detail-row">
                <td colSpan={headers.length}>{renderDetail(trial)}</td>
              </tr>
            ) : null}
          </Fragment>
        ))}
      </Table>
      {trials.length === 0 ? <p className="mt-2 text-sm text-muted">No trials.</p> : null}
    </div>
  );
}
