"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { buttonClass, FieldError, inputClass, smallButtonClass } from "../_components/ui";
import { FolderPicker } from "./folder-picker";

export function AddProjectForm({ onAdded }: { onAdded?: (id: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [hostPath, setHostPath] = useState("");
  const [name, setName] = useState("");
  const [browsing, setBrowsing] = useState(false);
  const add = useMutation(
    trpc.projects.add.mutationOptions({
      onSuccess: async (project) => {
        setHostPath("");
        setName("");
        await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
        onAdded?.(project.id);
      },
    }),
  );
  const error = add.error ? describeError(add.error) : null;
  const pathError =
    error && (error.field === "hostPath" || error.fieldErrors.hostPath || !error.field)
      ? (error.fieldErrors.hostPath?.[0] ?? error.message)
      : null;
  const nameError = error?.fieldErrors.name?.[0] ?? null;

  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate({ hostPath, ...(name.trim() ? { name } : {}) });
  }

  return (
    <form onSubmit={submit} className="grid gap-3 md:grid-cols-[2fr_1fr_auto] md:items-start" aria-label="Add project">
      <div>
        <label htmlFor="project-path" className="mb-1 block text-sm text-muted">
          Project directory on this host
        </label>
        <input
          id="project-path"
          className={inputClass}
          placeholder="/home/me/code/app"
          value={hostPath}
          onChange={(e) => setHostPath(e.target.value)}
          aria-invalid={Boolean(pathError)}
          aria-describedby="project-path-error"
          required
        />
        <FieldError id="project-path-error" message={pathError} />
        <button type="button" className={`${smallButtonClass} mt-2`} onClick={() => setBrowsing((open) => !open)}>
          {browsing ? "Close the folder list" : "Browse folders…"}
        </button>
        {browsing ? (
          <FolderPicker
            start={hostPath.startsWith("/") ? hostPath : null}
            onPick={(picked) => {
              setHostPath(picked);
              setBrowsing(false);
            }}
          />
        ) : null}
      </div>
      <div>
        <label htmlFor="project-name" className="mb-1 block text-sm text-muted">
          Name (optional)
        </label>
        <input
          id="project-name"
          className={inputClass}
          placeholder="folder name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={Boolean(nameError)}
          aria-describedby="project-name-error"
        />
        <FieldError id="project-name-error" message={nameError} />
      </div>
      <button type="submit" className={`${buttonClass} md:mt-6`} disabled={add.isPending}>
        {add.isPending ? "Adding…" : "Add project"}
      </button>
    </form>
  );
}
