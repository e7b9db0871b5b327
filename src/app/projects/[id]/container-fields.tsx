"use client";
import { inputClass } from "../../_components/ui";
import { FormField as Field } from "../../_components/form-field";
import type { Draft } from "./use-settings-draft";

/** Who the project's containers run as, what a trial may write, and open files per process. */
export function ContainerFields({
  draft,
  set,
  errorFor,
}: {
  draft: Draft;
  set: <K extends keyof Draft>(key: K, value: Draft[K]) => void;
  errorFor: (field: string) => string | null;
}) {
  return (
    <>
      <Field
        id="runAsRoot"
        label="Run as root"
        hint="On (the default): agents, tests and private sessions run as root inside their container, with only the capabilities package managers need, so apt-get, pip and npm -g work; what they write is handed back to your user. Off: they run as your user with no Linux capabilities. Direct sessions always run as the folder's owner; environment builds always as root."
        error={errorFor("runAsRoot")}
      >
        <div className="flex items-center gap-2 text-sm">
          <input
            id="runAsRoot"
            type="checkbox"
            checked={draft.runAsRoot}
            onChange={(e) => set("runAsRoot", e.target.checked)}
          />
          <span>run containers as root</span>
        </div>
      </Field>
      <Field
        id="diskBudgetBytes"
        label="Disk budget per trial (GiB)"
        hint="What a trial's agent, and then its test command, may write (the workspace's growth, the container's own files). Checked every 2 s; past it the trial is stopped (stopped: disk)."
        error={errorFor("diskBudgetBytes")}
      >
        <input
          id="diskBudgetBytes"
          type="number"
          step="0.5"
          className={inputClass}
          value={draft.diskBudgetGiB}
          onChange={(e) => set("diskBudgetGiB", e.target.value)}
        />
      </Field>
      <Field
        id="openFiles"
        label="Open files per process"
        hint="The nofile limit of every container; the Docker engine cannot give more than its own."
        error={errorFor("openFiles")}
      >
        <input
          id="openFiles"
          type="number"
          step="1024"
          className={inputClass}
          value={draft.openFiles}
          onChange={(e) => set("openFiles", e.target.value)}
        />
      </Field>
    </>
  );
}
