"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { ModelPrice, PricedModel } from "../../shared/model-prices";
import { inputClass, Panel, smallButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";

const FIELDS = [
  ["inputPerMillion", "Input"],
  ["cachedInputPerMillion", "Cached input"],
  ["outputPerMillion", "Output"],
  ["reasoningPerMillion", "Reasoning"],
] as const;
type PriceField = (typeof FIELDS)[number][0];
const EMPTY: Record<PriceField | "model", string> = {
  model: "",
  inputPerMillion: "",
  cachedInputPerMillion: "",
  outputPerMillion: "",
  reasoningPerMillion: "",
};

function usePriceMutations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const store = (next: PricedModel[]) => queryClient.setQueryData(trpc.studies.prices.queryKey(), next);
  const set = useMutation(trpc.studies.setPrice.mutationOptions({ onSuccess: store }));
  const reset = useMutation(trpc.studies.resetPrice.mutationOptions({ onSuccess: store }));
  return { set, reset };
}

/** The form that sets one model's price (a new model, or an edit over a default). */
function PriceForm({ draft, setDraft }: { draft: typeof EMPTY; setDraft: (next: typeof EMPTY) => void }) {
  const { set } = usePriceMutations();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const price = Object.fromEntries([
      ["model", draft.model],
      ...FIELDS.map(([field]) => [field, draft[field] === "" ? Number.NaN : Number(draft[field])]),
    ]) as ModelPrice;
    set.mutate(price, { onSuccess: () => setDraft(EMPTY) });
  };
  return (
    <form onSubmit={submit} className="mt-4 flex flex-wrap items-end gap-2" aria-label="Set a model's price">
      <label className="grid gap-1 text-xs text-muted">
        Model
        <input
          className={`${inputClass} w-48`}
          value={draft.model}
          onChange={(e) => setDraft({ ...draft, model: e.target.value })}
        />
      </label>
      {FIELDS.map(([field, label]) => (
        <label key={field} className="grid gap-1 text-xs text-muted">
          {label}
          <input
            className={`${inputClass} w-24`}
            inputMode="decimal"
            value={draft[field]}
            onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
          />
        </label>
      ))}
      <button type="submit" className={smallButtonClass} disabled={set.isPending}>
        Save price
      </button>
      {set.error ? (
        <p role="alert" className="w-full text-sm text-danger">
          {describeError(set.error).message}
        </p>
      ) : null}
    </form>
  );
}

/** Dollars per million tokens for each model: shipped defaults, edits over them; other models have an unknown price. */
export function ModelPrices({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const prices = useQuery(trpc.studies.prices.queryOptions());
  const { reset } = usePriceMutations();
  const [draft, setDraft] = useState(EMPTY);
  const edit = (row: PricedModel) =>
    setDraft({
      model: row.model,
      ...Object.fromEntries(FIELDS.map(([field]) => [field, String(row[field])])),
    } as typeof EMPTY);
  return (
    <Panel title="Model prices">
      <p className="mb-3 text-sm text-muted">
        US dollars per million tokens, used for the cost of trials and studies and for budgets in dollars. Defaults are
        the providers' published list prices; a model not listed has an unknown price, shown as such.
      </p>
      {prices.error ? <p className="text-sm text-danger">{describeError(prices.error).message}</p> : null}
      <div className="overflow-x-auto">
        <table className="text-sm" data-testid="model-prices">
          <thead>
            <tr className="text-left text-xs text-muted">
              <th className="px-2 py-1 font-normal">Model</th>
              {FIELDS.map(([field, label]) => (
                <th key={field} className="px-2 py-1 text-right font-normal">
                  {label}
                </th>
              ))}
              <th className="px-2 py-1 font-normal">Source</th>
              {isAdmin ? <th className="px-2 py-1" /> : null}
            </tr>
          </thead>
          <tbody>
            {(prices.data ?? []).map((row) => (
              <tr key={row.model} className="border-t border-line" data-model={row.model}>
                <td className="px-2 py-1 font-mono text-xs">{row.model}</td>
                {FIELDS.map(([field]) => (
                  <td key={field} className="px-2 py-1 text-right tabular-nums">
                    {row[field]}
                  </td>
                ))}
                <td className="px-2 py-1 text-xs text-muted">{row.source === "edited" ? "edited" : "default"}</td>
                {isAdmin ? (
                  <td className="px-2 py-1 whitespace-nowrap">
                    <button type="button" className={smallButtonClass} onClick={() => edit(row)}>
                      Edit
                    </button>
                    {row.source === "edited" ? (
                      <button
                        type="button"
                        className={`${smallButtonClass} ml-1`}
                        onClick={() => reset.mutate({ model: row.model })}
                      >
                        Reset
                      </button>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {isAdmin ? <PriceForm draft={draft} setDraft={setDraft} /> : null}
    </Panel>
  );
}
