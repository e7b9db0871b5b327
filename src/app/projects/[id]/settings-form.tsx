"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { GIB, type ProjectView } from "../../../shared/project-schemas";
import { REASONING_EFFORTS } from "../../../shared/vocabulary";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { buttonClass, inputClass } from "../../_components/ui";
import { FormField as Field } from "../../_components/form-field";

interface Draft {
  name: string;
  networkMode: "none" | "internet";
  cpus: string;
  memoryGiB: string;
  swapGiB: string;
  pids: string;
  baseImage: string;
  model: string;
  reasoningEffort: ProjectView["defaultConfiguration"]["reasoningEffort"];
}

function toDraft(project: ProjectView): Draft {
  return {
    name: project.name,
    networkMode: project.networkMode,
    cpus: String(project.cpus),
    memoryGiB: String(+(project.memoryBytes / GIB).toFixed(3)),
    swapGiB: String(+(project.swapBytes / GIB).toFixed(3)),
    pids: String(project.pids),
    baseImage: project.baseImage ?? "",
    model: project.defaultConfiguration.model,
    reasoningEffort: project.defaultConfiguration.reasoningEffort,
  };
}

export function SettingsForm({ project, readOnly }: { project: ProjectView; readOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => toDraft(project));
  const [saved, setSaved] = useState(false);
  const update = useMutation(
    trpc.projects.update.mutationOptions({
      onSuccess: async (next) => {
        setDraft(toDraft(next));
        setSaved(true);
        await queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
      },
    }),
  );
  const error = update.error ? describeError(update.error) : null;
  const errorFor = (field: string) =>
    error?.fieldErrors[`settings.${field}`]?.[0] ??
    error?.fieldErrors[field]?.[0] ??
    (error?.field === field ? error.message : null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setSaved(false);
    setDraft((current) => ({ ...current, [key]: value }));
  };

  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate({
      id: project.id,
      settings: {
        name: draft.name,
        networkMode: draft.networkMode,
        cpus: Number(draft.cpus),
        memoryBytes: Math.round(Number(draft.memoryGiB) * GIB),
        swapBytes: Math.round(Number(draft.swapGiB) * GIB),
        pids: Number(draft.pids),
        baseImage: draft.baseImage.trim() === "" ? null : draft.baseImage.trim(),
        defaultConfiguration: {
          ...project.defaultConfiguration,
          model: draft.model,
          reasoningEffort: draft.reasoningEffort,
        },
      },
    });
  }

  const unknownError = error && !error.field && Object.keys(error.fieldErrors).length === 0 ? error.message : null;
  const fieldsetClass = "grid gap-4 md:grid-cols-3";
  return (
    <form onSubmit={submit} aria-label="Project settings">
      <fieldset disabled={readOnly || update.isPending} className={fieldsetClass}>
        <Field id="name" label="Name" error={errorFor("name")}>
          <input id="name" className={inputClass} value={draft.name} onChange={(e) => set("name", e.target.value)} />
        </Field>
        <Field
          id="networkMode"
          label="Network"
          hint="none: no network at all (loopback only). internet: a normal bridge network."
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
      </fieldset>
      {readOnly ? null : (
        <div className="mt-4 flex items-center gap-3">
          <button type="submit" className={buttonClass} disabled={update.isPending}>
            {update.isPending ? "Saving…" : "Save settings"}
          </button>
          {saved ? <span className="text-sm text-emerald-400">Saved.</span> : null}
          {unknownError ? (
            <span role="alert" className="text-sm text-red-400">
              {unknownError}
            </span>
          ) : null}
        </div>
      )}
    </form>
  );
}
