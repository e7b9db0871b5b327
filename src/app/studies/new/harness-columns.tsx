"use client";
import type { Column } from "../../_components/data-table";
import { describedBy } from "../../_components/form-field";
import { FieldError } from "../../_components/ui";
import { effortFor, HARNESS_INFO, providerOfModel } from "../../../shared/harness-kinds";
import { DEFAULT_MODEL_PRICES } from "../../../shared/model-prices";
import { HARNESS_KINDS, type HarnessKind } from "../../../shared/vocabulary";
import { cellInput, cellOf, NotUsed, type ConfigurationRows } from "./configuration-cells";
import type { ConfigurationDraft, ResolvedConfiguration } from "./form-model";

/** The configurations table's harness-dependent cells: the harness itself, the effort it takes, the models it offers. */

/** The priced models of the harness's provider (the System page's table), offered as the model field's suggestions. */
export function ModelSuggestions({ id, harness }: { id: string; harness: HarnessKind }) {
  const provider = HARNESS_INFO[harness].provider;
  const models = DEFAULT_MODEL_PRICES.map((price) => price.model).filter(
    (model) => provider !== null && providerOfModel(model) === provider,
  );
  return (
    <datalist id={id}>
      {models.map((model) => (
        <option key={model} value={model} />
      ))}
    </datalist>
  );
}

/**
 * A row switched to another harness: a model of another provider's is not carried over (the row asks for
 * one, unless the project's default configuration is of this harness), and an effort the CLI does not take
 * becomes medium.
 */
function switchedHarness(
  table: ConfigurationRows,
  value: ResolvedConfiguration,
  kind: HarnessKind,
): Partial<ConfigurationDraft> {
  const sameProvider = HARNESS_INFO[kind].provider === HARNESS_INFO[value.harness].provider;
  const projectDefault = table.defaults?.configuration.harness === kind;
  return {
    harness: kind,
    ...(sameProvider ? {} : { model: projectDefault ? null : "" }),
    reasoningEffort: effortFor(kind, value.reasoningEffort),
  };
}

export function harnessColumn(table: ConfigurationRows): Column<ConfigurationDraft> {
  return {
    key: "harness",
    header: "Harness",
    cell: (row, index) => {
      const { n, value, id, error } = cellOf(table, row, index);
      return (
        <>
          <select
            id={id("harness")}
            aria-label={`Harness ${n}`}
            className={`${cellInput} min-w-32`}
            value={value.harness}
            onChange={(e) => {
              const kind = HARNESS_KINDS.find((each) => each === e.target.value);
              if (kind) table.update(index, switchedHarness(table, value, kind));
            }}
            {...describedBy(id("harness"), { error: error("harness") })}
          >
            {HARNESS_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {HARNESS_INFO[kind].label}
              </option>
            ))}
          </select>
          <FieldError id={`${id("harness")}-error`} message={error("harness")} />
        </>
      );
    },
  };
}

export function effortColumn(table: ConfigurationRows): Column<ConfigurationDraft> {
  return {
    key: "effort",
    header: "Effort",
    cell: (row, index) => {
      const { n, value, id, error } = cellOf(table, row, index);
      const efforts = HARNESS_INFO[value.harness].efforts;
      if (efforts.length === 0) return <NotUsed />;
      return (
        <>
          <select
            id={id("reasoningEffort")}
            aria-label={`Effort ${n}`}
            className={`${cellInput} min-w-28`}
            value={value.reasoningEffort}
            onChange={(e) =>
              table.update(index, { reasoningEffort: efforts.find((effort) => effort === e.target.value) ?? "medium" })
            }
            {...describedBy(id("reasoningEffort"), { error: error("reasoningEffort") })}
          >
            {efforts.map((effort) => (
              <option key={effort} value={effort}>
                {effort}
              </option>
            ))}
          </select>
          <FieldError id={`${id("reasoningEffort")}-error`} message={error("reasoningEffort")} />
        </>
      );
    },
  };
}
