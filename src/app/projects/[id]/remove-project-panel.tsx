"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ProjectView } from "../../../shared/project-schemas";
import { dangerButtonClass, ErrorMessage, Panel, secondaryButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { REMOVE_PANEL_ID } from "./folder-problem-banner";

/**
 * "Remove project", then a confirmation; on success, back to the project list. Refused while sessions or
 * studies of the project run (the answer lists them): then "Stop them and remove" finishes and stops them first.
 */
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
  const error = remove.error ? describeError(remove.error) : null;
  // the refusal names the option that overrides it: what runs is listed in its message
  const running = error?.field === "stopRunning";
  return (
    <div id={REMOVE_PANEL_ID} className="scroll-mt-6">
      <Panel title="Remove">
        <p className="mb-3 text-sm text-muted">
          Removing forgets this project and deletes what invariant-web keeps for it: its studies with their results, its
          environment images, snapshots and workspaces. The files in {project.hostPath} are never touched.
        </p>
        {confirming ? (
          <div className="flex flex-wrap gap-3">
            <button
              type="button"
              className={dangerButtonClass}
              onClick={() => remove.mutate({ id: project.id, stopRunning: running })}
              disabled={remove.isPending}
            >
              {remove.isPending ? "Removing…" : running ? "Stop them and remove" : `Yes, forget ${project.name}`}
            </button>
            <button
              type="button"
              className={secondaryButtonClass}
              onClick={() => {
                setConfirming(false);
                remove.reset();
              }}
            >
              Cancel
            </button>
          </div>
        ) : (
          <button type="button" className={dangerButtonClass} onClick={() => setConfirming(true)}>
            Remove project
          </button>
        )}
        {error ? <ErrorMessage className="mt-2 text-sm">{error.message}</ErrorMessage> : null}
      </Panel>
    </div>
  );
}
