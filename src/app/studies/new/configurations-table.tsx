"use client";
import type { StudyDefaultsView } from "../../../shared/study-schemas";
import { DataTable } from "../../_components/data-table";
import { FieldError, focusRing, secondaryButtonClass } from "../../_components/ui";
import { configurationColumns } from "./configuration-columns";
import {
  emptyConfiguration,
  fieldId,
  newKey,
  resolveConfiguration,
  type ConfigurationDraft,
  type FieldErrors,
} from "./form-model";

/** The study's configurations as an editable table, with "Add configuration" and the number of trials in all. */
export function ConfigurationsTable({
  rows,
  defaults,
  errors,
  onChange,
}: {
  rows: ConfigurationDraft[];
  defaults: StudyDefaultsView | undefined;
  errors: FieldErrors;
  onChange: (rows: ConfigurationDraft[]) => void;
}) {
  const resolved = rows.map((row) => resolveConfiguration(row, defaults));
  const columns = configurationColumns({
    rows,
    resolved,
    defaults,
    errors,
    update: (index, patch) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row))),
    duplicate: (index) => {
      const source = rows[index];
      if (source) onChange([...rows.slice(0, index + 1), { ...source, key: newKey() }, ...rows.slice(index + 1)]);
    },
    remove: (index) => onChange(rows.filter((_, i) => i !== index)),
  });
  const trials = resolved.reduce(
    (sum, row) => sum + (Number.isInteger(Number(row.repeats)) && Number(row.repeats) > 0 ? Number(row.repeats) : 0),
    0,
  );
  const tableError = errors.configurations;

  return (
    <div>
      <DataTable
        label="Configurations"
        // relative: the box that scrolls is also the containing block of the sr-only "Row actions" header, so that
        // header is clipped with the table instead of widening the page on a phone
        wrapperClassName="relative overflow-x-auto rounded-md border border-line"
        wrapperProps={{
          id: fieldId("configurations"),
          tabIndex: -1,
          "aria-describedby": tableError ? `${fieldId("configurations")}-error` : undefined,
        }}
        columns={columns}
        rows={rows}
        rowKey={(row) => row.key}
        rowClassName="border-t border-line align-top"
        rowProps={() => ({ "data-testid": "configuration-row" })}
      />
      <FieldError id={`${fieldId("configurations")}-error`} message={tableError} />
      <div className="mt-2 flex items-center gap-3">
        <button
          type="button"
          className={`${secondaryButtonClass} ${focusRing}`}
          onClick={() => onChange([...rows, emptyConfiguration()])}
          disabled={rows.length >= 20}
        >
          Add configuration
        </button>
        <span className="text-xs text-muted" aria-live="polite">
          {rows.length} configuration{rows.length === 1 ? "" : "s"}, {trials} trial{trials === 1 ? "" : "s"} in all (at
          most 200)
        </span>
      </div>
    </div>
  );
}
