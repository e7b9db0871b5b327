"use client";
import type { ProjectView } from "../../../shared/project-schemas";
import { REASONING_EFFORTS } from "../../../shared/vocabulary";
import { useEffect } from "react";
import { buttonClass, inputClass } from "../../_components/ui";
import { FormField as Field } from "../../_components/form-field";
import { ContainerFields } from "./container-fields";
import { useSettingsDraft, type Draft } from "./use-settings-draft";

interface FieldsProps {
  draft: Draft;
  set: <K extends keyof Draft>(key: K, value: Draft[K]) => void;
  errorFor: (field: string) => string | null;
}

/** Name, network and base image. */
function GeneralFields({ draft, set, errorFor }: FieldsProps) {
  return (
    <>
      <Field id="name" label="Name" error={errorFor("name")}>
        <input id="name" className={inputClass} value={draft.name} onChange={(e) => set("name", e.target.value)} />
      </Field>
      <Field
        id="networkMode"
        label="Network"
        hint="none: no network at all (loopback only). internet: the project's own bridge, from which no other container is reachable."
        error={errorFor("networkMode")}
      >
        <select
          id="networkMode"
          className={inputClass}
          value={draft.networkMode}
          onChange={(e) => set("networkMode", e.target.value === "internet" ? "internet" : "none")}
        >
          <option value="none">none (isolated)</option>
          <option value="internet">internet</option>
        </select>
      </Field>
      <Field
        id="baseImage"
        label="Base image"
        hint="Empty uses the global default. Must exist locally when there is no registry."
        error={errorFor("baseImage")}
      >
        <input
          id="baseImage"
          className={inputClass}
          placeholder="default"
          value={draft.baseImage}
          onChange={(e) => set("baseImage", e.target.value)}
        />
      </Field>
    </>
  );
}

/** Each container's limits: CPUs, memory, swap and processes. */
function LimitFields({ draft, set, errorFor }: FieldsProps) {
  return (
    <>
      <Field id="cpus" label="CPUs per container" error={errorFor("cpus")}>
        <input
          id="cpus"
          type="number"
          step="0.1"
          className={inputClass}
          value={draft.cpus}
          onChange={(e) => set("cpus", e.target.value)}
        />
      </Field>
      <Field id="memoryBytes" label="Memory (GiB)" error={errorFor("memoryBytes")}>
        <input
          id="memoryBytes"
          type="number"
          step="0.25"
          className={inputClass}
          value={draft.memoryGiB}
          onChange={(e) => set("memoryGiB", e.target.value)}
        />
      </Field>
      <Field id="swapBytes" label="Extra swap (GiB)" error={errorFor("swapBytes")}>
        <input
          id="swapBytes"
          type="number"
          step="0.25"
          className={inputClass}
          value={draft.swapGiB}
          onChange={(e) => set("swapGiB", e.target.value)}
        />
      </Field>
      <Field id="pids" label="Process limit" error={errorFor("pids")}>
        <input
          id="pids"
          type="number"
          className={inputClass}
          value={draft.pids}
          onChange={(e) => set("pids", e.target.value)}
        />
      </Field>
    </>
  );
}

/** The model and reasoning effort a new study's configurations start from. */
function DefaultConfigurationFields({ draft, set, errorFor }: FieldsProps) {
  return (
    <>
      <Field id="model" label="Default model" error={errorFor("defaultConfiguration")}>
        <input
          id="model"
          className={inputClass}
          placeholder="e.g. gpt-5-codex"
          value={draft.model}
          onChange={(e) => set("model", e.target.value)}
        />
      </Field>
      <Field id="reasoningEffort" label="Default reasoning effort" error={null}>
        <select
          id="reasoningEffort"
          className={inputClass}
          value={draft.reasoningEffort}
          onChange={(e) => set("reasoningEffort", e.target.value as Draft["reasoningEffort"])}
        >
          {REASONING_EFFORTS.map((effort) => (
            <option key={effort} value={effort}>
              {effort}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}

/** What the model gateway allows each run: its token budget, and hosted tools in network mode none. */
function GatewayFields({ draft, set, errorFor }: FieldsProps) {
  return (
    <>
      <Field
        id="runTokenBudget"
        label="Token budget per run"
        hint="Input + output tokens the model gateway allows one trial (unless its study sets one) or session; then it stops the agent (stopped: budget)."
        error={errorFor("runTokenBudget")}
      >
        <input
          id="runTokenBudget"
          type="number"
          step="1000"
          className={inputClass}
          value={draft.runTokenBudget}
          onChange={(e) => set("runTokenBudget", e.target.value)}
        />
      </Field>
      <Field
        id="allowHostedTools"
        label="Hosted tools"
        hint="With network none the gateway refuses web search, remote MCP servers, file search, code interpreter, image generation and images or files by URL: each would reach the outside world. Network internet allows them."
        error={errorFor("allowHostedTools")}
      >
        <div className="flex items-center gap-2 text-sm">
          <input
            id="allowHostedTools"
            type="checkbox"
            checked={draft.allowHostedTools}
            onChange={(e) => set("allowHostedTools", e.target.checked)}
          />
          <span>allow them with network none too</span>
        </div>
      </Field>
    </>
  );
}

export function SettingsForm({
  project,
  readOnly,
  onDirtyChange,
}: {
  project: ProjectView;
  readOnly: boolean;
  /** Told whether the draft has unsaved changes (the collapsed Settings section says so). */
  onDirtyChange?: (dirty: boolean) => void;
}) {
  const { draft, set, dirty, saved, errorFor, unknownError, submit, pending } = useSettingsDraft(project);
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);
  const fields = { draft, set, errorFor };
  return (
    <form onSubmit={submit} aria-label="Project settings">
      <fieldset disabled={readOnly || pending} className="grid gap-4 md:grid-cols-3">
        <GeneralFields {...fields} />
        <LimitFields {...fields} />
        <DefaultConfigurationFields {...fields} />
        <GatewayFields {...fields} />
        <ContainerFields {...fields} />
      </fieldset>
      {readOnly ? null : (
        <div className="mt-4 flex items-center gap-3">
          <button type="submit" className={buttonClass} disabled={pending}>
            {pending ? "Saving…" : "Save settings"}
          </button>
          {saved ? <span className="text-sm text-ok">Saved.</span> : null}
          {unknownError ? (
            <span role="alert" className="text-sm text-danger">
              {unknownError}
            </span>
          ) : null}
        </div>
      )}
    </form>
  );
}
