"use client";
import { Fragment, useCallback, useMemo, useRef, useState, type ReactNode } from "react";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { Table, type TableHeader } from "../../_components/data-table";
import { focusRing, inputClass } from "../../_components/ui";
import { TrialRow } from "./trial-row";
import { SelectionBar, useTrialSelection } from "./trial-selection";
import { matchesFind, PINNED_COLUMN, sortTrials, trialColumns, type Sort, type SortKey } from "./trial-sort";
import { useRowWindow, WINDOW_ABOVE_ROWS, type RowWindow } from "./use-row-window";

/** Header cells: a sort button per column (▲/▼ on the active one), and the retry checkboxes' column. */
function sortHeaders(options: {
  sort: Sort;
  onSort: (key: SortKey) => void;
  showRepeat: boolean;
  showSelect: boolean;
}): TableHeader[] {
  const { sort, onSort } = options;
  const select: TableHeader = { key: "select", header: <span className="sr-only">Select</span> };
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

/**
 * The results table: one row per trial (each follow-up right under its parent), sortable by any column; admins
 * pick retryable trials to run again and finished ones to send feedback to.
 */
export function TrialsTable({
  studyId,
  canFeedback,
  trials,
  configurations,
  openTrialIds,
  onOpen,
  canRetry,
  retrying,
  onRetry,
  renderDetail,
}: {
  studyId: string;
  /** Finished trials can be continued with feedback (an admin, the study not in preflight or stopping). */
  canFeedback: boolean;
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
  const selection = useTrialSelection(trials, { retry: canRetry, feedback: canFeedback });
  const byChoice = useMemo(
    () => new Map(configurations.map((configuration) => [configuration.choice, configuration])),
    [configurations],
  );
  const sorted = useMemo(() => sortTrials(trials, byChoice, sort), [trials, byChoice, sort]);
  const showRepeat = configurations.some((configuration) => configuration.repeats > 1);
  const showSelect = selection.selectable.size > 0;
  const onSort = (key: SortKey) =>
    setSort((current) => (current.key === key ? { key, dir: current.dir === 1 ? -1 : 1 } : { key, dir: 1 }));
  const headers = sortHeaders({ sort, onSort, showRepeat, showSelect });
  const [find, setFind] = useState("");
  const shown = useMemo(
    () => (find.trim() ? sorted.filter((trial) => matchesFind(trial, byChoice.get(trial.choice), find)) : sorted),
    [sorted, byChoice, find],
  );
  const rows = useWindowedTrials(shown, openTrialIds);

  return (
    <div>
      {showSelect ? (
        <SelectionBar studyId={studyId} selection={selection} retrying={retrying} onRetry={onRetry} />
      ) : null}
      {trials.length > WINDOW_ABOVE_ROWS ? (
        <FindTrials value={find} onChange={setFind} shown={shown.length} total={trials.length} />
      ) : null}
      <Table
        label="Trials"
        wrapperClassName="overflow-x-auto"
        headers={headers}
        tableRef={rows.tableRef}
        tableProps={{ "aria-rowcount": shown.length + 1 }}
      >
        <WindowedTrialRows
          rows={rows}
          shown={shown}
          columns={headers.length}
          byChoice={byChoice}
          showRepeat={showRepeat}
          showSelect={showSelect}
          openTrialIds={openTrialIds}
          checkedIds={selection.checkedIds}
          selectable={selection.selectable}
          onOpen={onOpen}
          onCheck={selection.onCheck}
          renderDetail={renderDetail}
        />
      </Table>
      {trials.length === 0 ? <p className="mt-2 text-sm text-muted">No trials.</p> : null}
      {trials.length > 0 && shown.length === 0 ? <p className="mt-2 text-sm text-muted">No trial matches.</p> : null}
    </div>
  );
}

/** The rendered rows of the table (all, or a window), each open one followed by its detail. */
function WindowedTrialRows(props: {
  rows: ReturnType<typeof useWindowedTrials>;
  shown: readonly TrialView[];
  columns: number;
  byChoice: ReadonlyMap<number, ConfigurationView>;
  showRepeat: boolean;
  showSelect: boolean;
  openTrialIds: readonly string[];
  checkedIds: ReadonlySet<string>;
  selectable: ReadonlySet<string>;
  onOpen: (trialId: string) => void;
  onCheck: (trialId: string, checked: boolean) => void;
  renderDetail: (trial: TrialView) => ReactNode;
}) {
  const { rows, shown, columns } = props;
  return (
    <>
      {rows.indices.map((index, position) => {
        const trial = shown[index];
        if (!trial) return null;
        const open = props.openTrialIds.includes(trial.id);
        const gap = rows.window?.gapBefore(position) ?? 0;
        return (
          <Fragment key={trial.id}>
            {gap > 0 ? <Spacer px={gap} columns={columns} /> : null}
            <TrialRow
              trial={trial}
              configuration={props.byChoice.get(trial.choice)}
              showRepeat={props.showRepeat}
              showSelect={props.showSelect}
              selectable={props.selectable.has(trial.id)}
              open={open}
              checked={props.checkedIds.has(trial.id)}
              onOpen={props.onOpen}
              onCheck={props.onCheck}
              rowIndex={index + 2}
            />
            {open ? (
              <tr data-testid="trial-detail-row" ref={(node) => rows.measureDetail(trial.id, node)}>
                <td colSpan={columns}>{props.renderDetail(trial)}</td>
              </tr>
            ) : null}
          </Fragment>
        );
      })}
      {rows.window && rows.window.gapAfter > 0 ? <Spacer px={rows.window.gapAfter} columns={columns} /> : null}
    </>
  );
}

/** Stands in for hidden rows of a windowed table: their height, nothing for assistive technology. */
function Spacer({ px, columns }: { px: number; columns: number }) {
  return (
    <tr aria-hidden="true" data-testid="trial-rows-hidden">
      <td colSpan={columns} style={{ height: px, padding: 0 }} />
    </tr>
  );
}

/** The filter of a long trials table: every word must match the trial's label, state, model, effort or error. */
function FindTrials(props: { value: string; onChange: (value: string) => void; shown: number; total: number }) {
  return (
    <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
      <input
        type="search"
        aria-label="Find trials"
        placeholder="Find trials (2.17, failed, a model…)"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        className={`${inputClass} max-w-72`}
      />
      <span className="text-muted" role="status">
        {props.shown === props.total ? `${props.total} trials` : `${props.shown} of ${props.total} trials`}
      </span>
    </div>
  );
}

/**
 * Which of the shown trials to render: all of a short list; of a long one the rows near the viewport and
 * the open ones (use-row-window.ts), with the open details' heights measured for the spacers.
 */
function useWindowedTrials(shown: readonly TrialView[], openTrialIds: readonly string[]) {
  const detailPx = useRef(new Map<string, number>());
  const pinned = useMemo(
    () => shown.flatMap((trial, index) => (openTrialIds.includes(trial.id) ? [index] : [])),
    [shown, openTrialIds],
  );
  const extraPx = useCallback((index: number) => detailPx.current.get(shown[index]?.id ?? "") ?? 0, [shown]);
  const { window, tableRef } = useRowWindow({ count: shown.length, pinned, extraPx });
  const all = useMemo(() => shown.map((_, index) => index), [shown]);
  return {
    window: window satisfies RowWindow | null,
    indices: window?.indices ?? all,
    tableRef,
    measureDetail: (trialId: string, node: HTMLTableRowElement | null) => {
      if (node) detailPx.current.set(trialId, node.offsetHeight);
    },
  };
}
