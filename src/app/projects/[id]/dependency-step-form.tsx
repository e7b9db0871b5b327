"use client";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { DependencyKind, DependencyStatusView } from "../../../shared/dependency-schemas";
import { buttonClass, FieldError, inputClass, secondaryButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

const KINDS: DependencyKind[] = ["npm", "pnpm", "yarn", "python", "go", "cargo", "command"];
const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** Edit the dependency step (command, output folders, manifests), or go back to the detected one. */
export function DependencyStepForm({
  projectId,
  status,
  onSaved,
}: {
  projectId: string;
  status: DependencyStatusView;
  onSaved: () => Promise<void>;
}) {
  const trpc = useTRPC();
  const step = status.step;
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<DependencyKind>(step?.kind ?? "command");
  const [command, setCommand] = useState(step?.command ?? "");
  const [outputs, setOutputs] = useState(step?.outputs.join(", ") ?? "");
  const [manifests, setManifests] = useState(step?.manifests.join(", ") ?? "");
  const save = useMutation(trpc.dependencies.setStep.mutationOptions({ onSuccess: onSaved }));
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ projectId, step: { kind, command, outputs: list(outputs), manifests: list(manifests) } });
  }
  if (!open)
    return (
      <div className="mt-3 flex gap-3">
        <button type="button" className={secondaryButtonClass} onClick={() => setOpen(true)}>
          Edit the step
        </button>
        {status.edited ? (
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={save.isPending}
            onClick={() => save.mutate({ projectId, step: null })}
          >
            Use the detected step
          </button>
        ) : null}
      </div>
    );
  return (
    <form onSubmit={submit} className="mt-3 grid gap-3" aria-label="Dependency step">
      <label className="text-sm text-muted">
        Kind (which toolchain the step makes sure of, and which caches it mounts)
        <select className={inputClass} value={kind} onChange={(e) => setKind(e.target.value as DependencyKind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label className="text-sm text-muted">
        Command (runs with sh -c in /workspace)
        <textarea
          className={`${inputClass} font-mono`}
          rows={2}
          value={command}
          onChange={(e) => setCommand(e.target.value)}
        />
      </label>
      <label className="text-sm text-muted">
        Output folders, comma-separated (mounted into every trial at the same place)
        <input className={`${inputClass} font-mono`} value={outputs} onChange={(e) => setOutputs(e.target.value)} />
      </label>
      <label className="text-sm text-muted">
        Manifest files, comma-separated (copied in from a fresh snapshot; a change makes the page warn)
        <input className={`${inputClass} font-mono`} value={manifests} onChange={(e) => setManifests(e.target.value)} />
      </label>
      <FieldError id="dependency-step-error" message={save.error ? describeError(save.error).message : null} />
      <div className="flex gap-3">
        <button type="submit" className={buttonClass} disabled={save.isPending}>
          Save the step
        </button>
        <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
