"use client";
import type { Column } from "../../_components/data-table";
import { describedBy } from "../../_components/form-field";
import { FieldError, smallButtonClass as smallButton } from "../../_components/ui";
import { fieldId, type ConfigurationDraft } from "./form-model";
import { configurationLabel, MAX_CONFIGURATION_LABEL_CHARS, mixesAgents } from "../../../shared/configuration-label";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import { cellInput, cellOf, NotUsed, type ConfigurationRows } from "./configuration-cells";
import { effortColumn, harnessColumn, ModelSuggestions } from "./harness-columns";

export type { ConfigurationRows } from "./configuration-cells";
function textColumn(
  table: ConfigurationRows,
  options: {
    key: "label" | "model" | "instructions" | "repeats";
    header: string;
    render: "input" | "textarea" | "number";
  },
): Column<ConfigurationDraft> {
  const { key, header } = options;
  const classes = {
    label: "min-w-40",
    model: "min-w-36 font-mono",
    instructions: "min-w-48",
    repeats: "w-20",
  } as const;
  return {
    key,
    header,
    cell: (row, index) => {
      const { n, value, id, error } = cellOf(table, row, index);
      if (key === "model" && !HARNESS_INFO[value.harness].modelRequired) return <NotUsed />;
      const common = {
        id: id(key),
        "aria-label": `${header} ${n}`,
        className: `${cellInput} ${classes[key]}`,
        value: value[key],
        ...describedBy(id(key), { error: error(key) }),
      };
      const onChange = (text: string) => table.update(index, { [key]: text });
      return (
        <>
          {options.render === "textarea" ? (
            <textarea {...common} rows={1} placeholder="none" onChange={(e) => onChange(e.target.value)} />
          ) : options.render === "number" ? (
            <input
              {...common}
              type="number"
              min={1}
              max={20}
              inputMode="numeric"
              onChange={(e) => onChange(e.target.value)}
            />
          ) : (
            <input
              {...common}
              list={key === "model" ? `${id(key)}-suggestions` : undefined}
              maxLength={key === "label" ? MAX_CONFIGURATION_LABEL_CHARS : undefined}
              // an empty label reads as the derived one, shown as the placeholder
              placeholder={
                key === "label"
                  ? configurationLabel({ ...value, customLabel: null }, { namedAgent: mixesAgents(table.resolved) })
                  : HARNESS_INFO[value.harness].exampleModel
              }
              title={key === "label" ? "Shown in every table, chart and report; empty: the placeholder" : undefined}
              onChange={(e) => onChange(e.target.value)}
            />
          )}
          {key === "model" ? <ModelSuggestions id={`${id(key)}-suggestions`} harness={value.harness} /> : null}
          <FieldError id={`${id(key)}-error`} message={error(key)} />
        </>
      );
    },
  };
}

function commandColumn(table: ConfigurationRows): Column<ConfigurationDraft> {
  return {
    key: "command",
    header: "Command",
    cell: (row, index) => {
      const { n, value, id, error } = cellOf(table, row, index);
      if (value.harness !== "command") return <NotUsed />;
      return (
        <>
          <input
            id={id("command")}
            aria-label={`Command ${n}`}
            className={`${cellInput} min-w-64 font-mono`}
            placeholder="./my-agent.sh"
            title={value.command || undefined}
            value={value.command}
            onChange={(e) => table.update(index, { command: e.target.value })}
            {...describedBy(id("command"), { error: error("command") })}
          />
          <FieldError id={`${id("command")}-error`} message={error("command")} />
        </>
      );
    },
  };
}

function actionsColumn(table: ConfigurationRows): Column<ConfigurationDraft> {
  return {
    key: "actions",
    header: <span className="sr-only">Row actions</span>,
    className: "whitespace-nowrap",
    cell: (_row, index) => (
      <>
        <button
          type="button"
          className={`${smallButton} mr-1`}
          aria-label={`Duplicate configuration ${index + 1}`}
          onClick={() => table.duplicate(index)}
          disabled={table.rows.length >= 20}
        >
          Duplicate
        </button>
        <button
          type="button"
          className={smallButton}
          aria-label={`Remove configuration ${index + 1}`}
          onClick={() => table.remove(index)}
          disabled={table.rows.length <= 1}
        >
          Remove
        </button>
      </>
    ),
  };
}

/**
 * The configurations table's columns. Each control is named "<Column> <row>" (1-based) for assistive
 * technology; the column headers are the visible labels. The command column shows only when some row
 * runs a command, the model column only when some row runs an agent CLI, the effort column only when
 * some row's CLI takes an effort.
 */
export function configurationColumns(table: ConfigurationRows): Column<ConfigurationDraft>[] {
  const anyCommand = table.resolved.some((row) => row.harness === "command");
  const anyModel = table.resolved.some((row) => HARNESS_INFO[row.harness].modelRequired);
  const anyEffort = table.resolved.some((row) => HARNESS_INFO[row.harness].efforts.length > 0);
  const number: Column<ConfigurationDraft> = {
    key: "n",
    header: "#",
    className: "text-muted",
    cell: (_row, index) => (
      <>
        {index + 1}
        <FieldError
          id={`${fieldId(`configurations.${index}`)}-error`}
          message={table.errors[`configurations.${index}`]}
        />
      </>
    ),
  };
  return [
    number,
    harnessColumn(table),
    textColumn(table, { key: "label", header: "Label", render: "input" }),
    ...(anyModel ? [textColumn(table, { key: "model", header: "Model", render: "input" })] : []),
    ...(anyEffort ? [effortColumn(table)] : []),
    ...(anyCommand ? [commandColumn(table)] : []),
    textColumn(table, { key: "instructions", header: "Instructions", render: "textarea" }),
    textColumn(table, { key: "repeats", header: "Repeats", render: "number" }),
    actionsColumn(table),
  ];
}
