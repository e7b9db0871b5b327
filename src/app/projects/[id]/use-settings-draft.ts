"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { GIB, type ProjectView } from "../../../shared/project-schemas";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

/** The settings form's fields as typed (numbers stay text until they are saved). */
export interface Draft {
  name: string;
  networkMode: "none" | "internet";
  cpus: string;
  memoryGiB: string;
  swapGiB: string;
  pids: string;
  baseImage: string;
  model: string;
  reasoningEffort: ProjectView["defaultConfiguration"]["reasoningEffort"];
  runTokenBudget: string;
  allowHostedTools: boolean;
  runAsRoot: boolean;
  diskBudgetGiB: string;
  openFiles: string;
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
    runTokenBudget: String(project.runTokenBudget),
    allowHostedTools: project.allowHostedTools,
    runAsRoot: project.runAsRoot,
    diskBudgetGiB: String(+(project.diskBudgetBytes / GIB).toFixed(3)),
    openFiles: String(project.openFiles),
  };
}

/**
 * The settings form's state: the draft, whether it differs from the saved settings (`dirty`), whether it was just
 * saved, the error of each field (`errorFor`), and `submit`, which sends the draft as the project's new settings.
 */
export function useSettingsDraft(project: ProjectView) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => toDraft(project));
  const [savedDraft, setSavedDraft] = useState<Draft>(() => toDraft(project));
  const [saved, setSaved] = useState(false);
  const update = useMutation(
    trpc.projects.update.mutationOptions({
      onSuccess: async (next) => {
        setDraft(toDraft(next));
        setSavedDraft(toDraft(next));
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
        runTokenBudget: Number(draft.runTokenBudget),
        allowHostedTools: draft.allowHostedTools,
        runAsRoot: draft.runAsRoot,
        diskBudgetBytes: Math.round(Number(draft.diskBudgetGiB) * GIB),
        openFiles: Number(draft.openFiles),
      },
    });
  }

  const unknownError = error && !error.field && Object.keys(error.fieldErrors).length === 0 ? error.message : null;
  const dirty = JSON.stringify(draft) !== JSON.stringify(savedDraft);
  return { draft, set, dirty, saved, errorFor, unknownError, submit, pending: update.isPending };
}
