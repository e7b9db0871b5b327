"use client";
import type { StudyDefaultsView } from "../../../shared/study-schemas";
import { FieldError, secondaryButtonClass } from "../../_components/ui";
import { focusRing } from "../study-format";
import { describedBy, fieldInputClass } from "../../_components/form-field";
import {
  EFFORTS,
  emptyConfiguration,
  fieldId,
  newKey,
  resolveConfiguration,
  type ConfigurationDraft,
  type FieldErrors,
} from "./form-model";

const cellInput = `${fieldInputClass} px-2 py-1.5`;
const smallButton = `rounded border border-line px-2 py-1 text-xs hover:border-muted disabled:opacity-40 ${focusRing}`;

/**
 * The study's configurations as an editable table. Each control is named "<Column> <row>" (1-based)
 * for assistive technology; the column headers are the visible labels.
 */
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
  const anyCommand = resolved.some((row) => row.harness === "command");
  const update = (index: number, patch: Partial<ConfigurationDraft>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const duplicate = (index: number) => {
    const source = rows[index];
    if (source) onChange([...rows.slice(0, index + 1), { ...source, key: newKey() }, ...rows.slice(index + 1)]);
  };
  const trials = resolved.reduce(
    (sum, row) => sum + (Number.isInteger(Number(row.repeats)) && Number(row.repeats) > 0 ? Number(row.repeats) : 0),
    0,
  );
  const tableError = errors.configurations;

  return (
    <div>
      <div
        id={fieldId("configurations")}
        tabIndex={-1}
        className="overflow-x-auto rounded-md border border-line"
        aria-describedby={tableError ? `${fieldId("configurations")}-error` : undefined}
      >
        <table className="w-full text-left text-sm" aria-label="Configurations">
          <thead className="text-xs uppercase text-muted">
            <tr>
              <th className="px-2 py-2">#</th>
              <th className="px-2">Harness</th>
              <th className="px-2">Model</th>
              <th className="px-2">Effort</th>
              <th className="px-2">Instructions</th>
              <th className="px-2">Repeats</th>
              {anyCommand ? <th className="px-2">Command</th> : null}
              <th className="px-2">
                <span className="sr-only">Row actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const n = index + 1;
              const value = resolved[index] ?? resolveConfiguration(row, defaults);
              const error = (field: string) => errors[`configurations.${index}.${field}`];
              const id = (field: string) => fieldId(`configurations.${index}.${field}`);
              const rowError = errors[`configurations.${index}`];
              return (
                <tr key={row.key} className="border-t border-line align-top" data-testid="configuration-row">
                  <td className="px-2 py-2 text-muted">
                    {n}
                    <FieldError id={`${fieldId(`configurations.${index}`)}-error`} message={rowError} />
                  </td>
                  <td className="px-2 py-2">
                    <select
                      id={id("harness")}
                      aria-label={`Harness ${n}`}
                      className={`${cellInput} min-w-28`}
                      value={value.harness}
                      onChange={(e) => update(index, { harness: e.target.value === "command" ? "command" : "codex" })}
                      {...describedBy(id("harness"), { error: error("harness") })}
                    >
                      <option value="codex">codex</option>
                      <option value="command">command</option>
                    </select>
                    <FieldError id={`${id("harness")}-error`} message={error("harness")} />
                  </td>
                  <td className="px-2 py-2">
                    <input
                      id={id("model")}
                      aria-label={`Model ${n}`}
                      className={`${cellInput} min-w-36 font-mono`}
                      placeholder={value.harness === "command" ? "optional" : "gpt-5-codex"}
                      value={value.model}
                      onChange={(e) => update(index, { model: e.target.value })}
                      {...describedBy(id("model"), { error: error("model") })}
                    />
                    <FieldError id={`${id("model")}-error`} message={error("model")} />
                  </td>
                  <td className="px-2 py-2">
                    <select
                      id={id("reasoningEffort")}
                      aria-label={`Effort ${n}`}
                      className={`${cellInput} min-w-24`}
                      value={value.reasoningEffort}
                      onChange={(e) =>
                        update(index, {
                          reasoningEffort: EFFORTS.find((effort) => effort === e.target.value) ?? "medium",
                        })
                      }
                      {...describedBy(id("reasoningEffort"), { error: error("reasoningEffort") })}
                    >
                      {EFFORTS.map((effort) => (
                        <option key={effort} value={effort}>
                          {effort}
                        </option>
                      ))}
                    </select>
                    <FieldError id={`${id("reasoningEffort")}-error`} message={error("reasoningEffort")} />
                  </td>
                  <td className="px-2 py-2">
                    <textarea
                      id={id("instructions")}
                      aria-label={`Instructions ${n}`}
                      rows={1}
                      className={`${cellInput} min-w-48`}
                      placeholder="none"
                      value={value.instructions}
                      onChange={(e) => update(index, { instructions: e.target.value })}
                      {...describedBy(id("instructions"), { error: error("instructions") })}
                    />
                    <FieldError id={`${id("instructions")}-error`} message={error("instructions")} />
                  </td>
                  <td className="px-2 py-2">
                    <input
                      id={id("repeats")}
                      aria-label={`Repeats ${n}`}
                      type="number"
                      min={1}
                      max={20}
                      inputMode="numeric"
                      className={`${cellInput} w-20`}
                      value={value.repeats}
                      onChange={(e) => update(index, { repeats: e.target.value })}
                      {...describedBy(id("repeats"), { error: error("repeats") })}
                    />
                    <FieldError id={`${id("repeats")}-error`} message={error("repeats")} />
                  </td>
                  {anyCommand ? (
                    <td className="px-2 py-2">
                      {value.harness === "command" ? (
                        <>
                          <input
                            id={id("command")}
                            aria-label={`Command ${n}`}
                            className={`${cellInput} min-w-48 font-mono`}
                            placeholder="./my-agent.sh"
                            value={value.command}
                            onChange={(e) => update(index, { command: e.target.value })}
                            {...describedBy(id("command"), { error: error("command") })}
                          />
                          <FieldError id={`${id("command")}-error`} message={error("command")} />
                        </>
                      ) : (
                        <span className="text-xs text-muted">—</span>
                      )}
                    </td>
                  ) : null}
                  <td className="whitespace-nowrap px-2 py-2">
                    <button
                      type="button"
                      className={`${smallButton} mr-1`}
                      aria-label={`Duplicate configuration ${n}`}
                      onClick={() => duplicate(index)}
                      disabled={rows.length >= 20}
                    >
                      Duplicate
                    </button>
                    <button
                      type="button"
                      className={smallButton}
                      aria-label={`Remove configuration ${n}`}
                      onClick={() => onChange(rows.filter((_, i) => i !== index))}
                      disabled={rows.length <= 1}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
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
