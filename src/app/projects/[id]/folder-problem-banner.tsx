"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { ProjectView } from "../../../shared/project-schemas";
import {
  buttonClass,
  dangerBoxClass,
  FieldError,
  inputClass,
  secondaryButtonClass,
  smallButtonClass,
} from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { FolderPicker } from "../folder-picker";

/** The id of the Remove panel, which the banner's Remove jumps to. */
export const REMOVE_PANEL_ID = "remove-project";

/**
 * A project whose folder is gone (or is not a folder, or cannot be read) says so first, with the two ways on:
 * Relink it to the folder's new path, or Remove it. Nothing that needs the folder works until then.
 */
export function FolderProblemBanner({ project, isAdmin }: { project: ProjectView; isAdmin: boolean }) {
  const [relinking, setRelinking] = useState(false);
  if (!project.folder.problem) return null;
  return (
    <section className={`${dangerBoxClass} mb-6`} role="alert" aria-label="Project folder" data-testid="folder-problem">
      <p className="font-medium">{project.folder.problem}</p>
      <p className="mt-1 text-muted">
        Studies, sessions, snapshots and applies need the folder; its studies and history are kept.
      </p>
      {isAdmin ? (
        relinking ? (
          <RelinkForm project={project} onCancel={() => setRelinking(false)} />
        ) : (
          <div className="mt-3 flex flex-wrap gap-3">
            <button type="button" className={buttonClass} onClick={() => setRelinking(true)}>
              Relink…
            </button>
            <a href={`#${REMOVE_PANEL_ID}`} className={secondaryButtonClass}>
              Remove…
            </a>
          </div>
        )
      ) : (
        <p className="mt-1 text-muted">Ask the admin to relink or remove it.</p>
      )}
    </section>
  );
}

function RelinkForm({ project, onCancel }: { project: ProjectView; onCancel: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [hostPath, setHostPath] = useState("");
  const [browsing, setBrowsing] = useState(false);
  const relink = useMutation(
    trpc.projects.relink.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
        onCancel();
      },
    }),
  );
  const error = relink.error ? describeError(relink.error) : null;
  const message = error ? (error.fieldErrors.hostPath?.[0] ?? error.message) : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    relink.mutate({ id: project.id, hostPath });
  }

  return (
    <form onSubmit={submit} className="mt-3 grid gap-2" aria-label="Relink project">
      <label htmlFor="relink-path" className="text-muted">
        The folder&apos;s new path on this host
      </label>
      <div className="flex flex-wrap items-start gap-2">
        <input
          id="relink-path"
          className={`${inputClass} min-w-0 flex-1 basis-64`}
          placeholder="/home/me/code/app"
          value={hostPath}
          onChange={(event) => setHostPath(event.target.value)}
          aria-invalid={Boolean(message)}
          aria-describedby="relink-path-error"
          required
        />
        <button type="submit" className={buttonClass} disabled={relink.isPending}>
          {relink.isPending ? "Relinking…" : "Relink"}
        </button>
        <button type="button" className={secondaryButtonClass} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <FieldError id="relink-path-error" message={message} />
      <div>
        <button type="button" className={smallButtonClass} onClick={() => setBrowsing((open) => !open)}>
          {browsing ? "Close the folder list" : "Browse folders…"}
        </button>
      </div>
      {browsing ? (
        <FolderPicker
          start={null}
          onPick={(picked) => {
            setHostPath(picked);
            setBrowsing(false);
          }}
        />
      ) : null}
    </form>
  );
}
