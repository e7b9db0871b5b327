"use client";
import { useState } from "react";
import type { RetryConfigurationEdit } from "../../../shared/study-inputs";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { REASONING_EFFORTS, type ReasoningEffort } from "../../../shared/vocabulary";
import { FormField } from "../../_components/form-field";
import { NoWorkerWarning } from "../../_components/system-health";
import { buttonClass, focusRing, inputClass, secondaryButtonClass } from "../../_components/ui";

/** The model and effort a Codex configuration's retry may change. */
function ModelFields(props: {
  id: (field: string) => string;
  model: string;
  effort: ReasoningEffort;
  needsModel: boolean;
  onModel: (model: string) => void;
  onEffort: (effort: ReasoningEffort) => void;
}) {
  const { id } = props;
  return (
    <>
      <FormField id={id("model")} label="Model" error={props.needsModel ? "Enter a model." : null}>
        <input
          id={id("model")}
          className={inputClass}
          value={props.model}
          onChange={(e) => props.onModel(e.target.value)}
        />
      </FormField>
      <FormField id={id("effort")} label="Effort" error={null}>
        <select
          id={id("effort")}
          className={inputClass}
          value={props.effort}
          onChange={(e) => props.onEffort(e.target.value as ReasoningEffort)}
        >
          {REASONING_EFFORTS.map((value) => (
            <option key={value}>{value}</option>
          ))}
        </select>
      </FormField>
    </>
  );
}

/**
 * Retry one trial, as it was or with another model, effort or instructions. An edited retry runs as a
 * new configuration of the study (the next number), so the other trials of this one stay as they were.
 */
export function TrialRetryForm({
  trial,
  configuration,
  nextChoice,
  retrying,
  onRetry,
  onCancel,
}: {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  /** The number an edited configuration would get. */
  nextChoice: number;
  retrying: boolean;
  onRetry: (edit: RetryConfigurationEdit | undefined) => void;
  onCancel: () => void;
}) {
  const [model, setModel] = useState(configuration?.model ?? "");
  const [effort, setEffort] = useState<ReasoningEffort>(configuration?.reasoningEffort ?? "medium");
  const [instructions, setInstructions] = useState(configuration?.instructions ?? "");
  const edited =
    configuration !== undefined &&
    (model.trim() !== configuration.model ||
      effort !== configuration.reasoningEffort ||
      instructions !== configuration.instructions);
  const id = (field: string) => `retry-${trial.id}-${field}`;
  const needsModel = configuration?.harness !== "command" && model.trim() === "";
  return (
    <form
      aria-label={`Retry trial ${trial.choice}.${trial.repeat}`}
      className="mb-4 grid gap-3 rounded-md border border-line p-3 md:grid-cols-2"
      onSubmit={(event) => {
        event.preventDefault();
        onRetry(edited ? { model: model.trim(), reasoningEffort: effort, instructions } : undefined);
      }}
    >
      {configuration?.harness === "command" ? (
        // a command line has no model or effort to edit
        <p className="text-xs text-muted md:col-span-2">
          Command: <code className="font-mono break-all">{configuration.command}</code>
        </p>
      ) : (
        <ModelFields
          id={id}
          model={model}
          effort={effort}
          needsModel={needsModel}
          onModel={setModel}
          onEffort={setEffort}
        />
      )}
      <div className="md:col-span-2">
        <FormField id={id("instructions")} label="Instructions" error={null}>
          <textarea
            id={id("instructions")}
            rows={3}
            className={inputClass}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
          />
        </FormField>
      </div>
      <p className="text-xs text-muted md:col-span-2" data-testid="retry-note">
        {edited
          ? `Runs as a new configuration, configuration ${nextChoice} (edited from configuration ${trial.choice}); the other trials of configuration ${trial.choice} are not changed.`
          : `Runs again with configuration ${trial.choice} as attempt ${trial.attempt + 1}; this attempt stays in the history.`}
      </p>
      <div className="md:col-span-2">
        <NoWorkerWarning what="The retry" />
      </div>
      <div className="flex gap-2 md:col-span-2">
        <button type="submit" className={`${buttonClass} ${focusRing}`} disabled={retrying || needsModel}>
          {retrying ? "Retrying…" : edited ? `Retry as configuration ${nextChoice}` : "Retry"}
        </button>
        <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
