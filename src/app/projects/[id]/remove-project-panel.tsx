"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ProjectView } from "../../../shared/project-schemas";
import { dangerButtonClass, ErrorMessage, Panel, secondaryButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

/** "Remove project", then a confirmation; on success, back to the project list. */
export function RemoveProjectPanel({ project }: { project: ProjectView }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.projects.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
        router.push("/projects");
      },
    }),
  );
  return (
    <Panel title="Remove">
      <p className="mb-3 text-sm text-muted">
        Removing forgets this project and deletes what invariant-web keeps for it: its studies with their results, its
        environment images, snapshots and workspaces. The files in {project.hostPath} are never touched.
      </p>
      {confirming ? (
        <div className="flex gap-3">
          <button
            type="button"
            className={dangerButtonClass}
            onClick={() => remove.mutate({ id: project.id })}
            disabled={remove.isPending}
          >
            Yes, forget {project.name}
          </button>
          <button type="button" className={secondaryButtonClass} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className={dangerButtonClass} onClick={() => setConfirming(true)}>
          Remove project
        </button>
      )}
      {remove.error ? (
        <ErrorMessage className="mt-2 text-sm">{describeError(remove.error).message}</ErrorMessage>
      ) : null}
    </Panel>
  );
}
