"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { StudyView } from "../../../shared/study-schemas";
import { dangerButtonClass, focusRing, secondaryButtonClass, smallButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

/** "Delete study…", then an explicit confirmation naming what goes; on success, back to the project. */
export function DeleteStudy({ study }: { study: StudyView }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.studies.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.studies.list.queryKey() });
        router.push(`/projects/${study.projectId}`);
      },
    }),
  );
  if (!confirming) {
    return (
      <button type="button" className={smallButtonClass} onClick={() => setConfirming(true)}>
        Delete study…
      </button>
    );
  }
  const trials = study.trials.length;
  return (
    <div
      role="group"
      aria-label="Confirm deletion"
      className="max-w-sm rounded-md border border-danger-strong/40 p-3 text-sm"
    >
      <p>
        Delete “{study.title}” with its {trials} trial{trials === 1 ? "" : "s"}: their workspaces, images, logs and
        results. Applied results stay in the project. This cannot be undone.
      </p>
      <div className="mt-3 flex gap-2">
        <button
          type="button"
          className={`${dangerButtonClass} ${focusRing}`}
          disabled={remove.isPending}
          onClick={() => remove.mutate({ studyId: study.id })}
        >
          {remove.isPending ? "Deleting…" : "Delete"}
        </button>
        <button
          type="button"
          className={`${secondaryButtonClass} ${focusRing}`}
          disabled={remove.isPending}
          onClick={() => setConfirming(false)}
        >
          Cancel
        </button>
      </div>
      {remove.error ? (
        <p role="alert" className="mt-2 text-danger">
          {describeError(remove.error).message}
        </p>
      ) : null}
    </div>
  );
}
