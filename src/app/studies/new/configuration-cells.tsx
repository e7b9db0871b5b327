"use client";
import type { StudyDefaultsView } from "../../../shared/study-schemas";
import { fieldInputClass } from "../../_components/form-field";
import {
  fieldId,
  resolveConfiguration,
  type ConfigurationDraft,
  type FieldErrors,
  type ResolvedConfiguration,
} from "./form-model";

/** What every cell of the configurations table shares: the rows, their resolved values, and a cell's ids and errors. */
export const cellInput = `${fieldInputClass} px-2 py-1.5`;

/** A cell of a field the row's harness does not use (a command has no model or effort; Codex no command). */
export function NotUsed() {
  return (
    <span className="text-xs text-muted" title="Not used by this harness">
      —
    </span>
  );
}

export interface ConfigurationRows {
  rows: readonly ConfigurationDraft[];
  resolved: readonly ResolvedConfiguration[];
  defaults: StudyDefaultsView | undefined;
  errors: FieldErrors;
  update: (index: number, patch: Partial<ConfigurationDraft>) => void;
  duplicate: (index: number) => void;
  remove: (index: number) => void;
}

/** What a cell of row `index` needs: its 1-based number, resolved values, control ids and errors. */
export function cellOf(table: ConfigurationRows, row: ConfigurationDraft, index: number) {
  return {
    n: index + 1,
    value: table.resolved[index] ?? resolveConfiguration(row, table.defaults),
    id: (field: string) => fieldId(`configurations.${index}.${field}`),
    error: (field: string) => table.errors[`configurations.${index}.${field}`],
  };
}
