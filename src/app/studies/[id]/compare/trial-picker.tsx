"use client";
import type { StudyView } from "../../../../shared/study-schemas";
import { formatVerdict } from "../../study-format";
import { MAX_COMPARED } from "./use-compare-params";
import { trialTitle } from "../../../../shared/domain-names";

/** One checkbox per trial of the study: compare 2 to 8 of them. */
export function TrialPicker({
  study,
  selected,
  onChange,
}: {
  study: StudyView;
  selected: readonly string[];
  onChange: (trialIds: string[]) => void;
}) {
  const configurations = new Map(study.configurations.map((configuration) => [configuration.id, configuration]));
  const full = selected.length >= MAX_COMPARED;
  return (
    <fieldset className="rounded-lg border border-line bg-panel p-3">
      <legend className="px-1 text-xs uppercase tracking-wide text-muted">
        Trials to compare ({selected.length} of 2–{MAX_COMPARED})
      </legend>
      <div className="flex flex-wrap gap-2">
        {study.trials.map((trial) => {
          const configuration = configurations.get(trial.configurationId);
          const checked = selected.includes(trial.id);
          const label = trialTitle(trial, configuration?.label);
          return (
            <label
              key={trial.id}
              className="inline-flex cursor-pointer items-center gap-2 rounded border border-line px-2 py-1 text-sm hover:border-muted has-[:checked]:border-accent/60 has-[:disabled]:opacity-50 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus"
            >
              <input
                type="checkbox"
                className="accent-accent"
                checked={checked}
                disabled={!checked && full}
                onChange={(event) =>
                  onChange(event.target.checked ? [...selected, trial.id] : selected.filter((id) => id !== trial.id))
                }
              />
              <span>{label}</span>
              <span className={`text-xs tabular-nums ${trial.verdict?.ok ? "text-ok-soft" : "text-muted"}`}>
                {formatVerdict(trial.verdict)}
              </span>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}
