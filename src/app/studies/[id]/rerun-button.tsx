"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { smallButtonClass } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

/**
 * Reruns the study, or one of its trials, exactly from the manifests: the new study opens; a part that is
 * gone (the image deleted) is refused with the reason, shown beside the button. Admins only.
 */
export function RerunButton({ studyId, trialId, label }: { studyId: string; trialId?: string; label: string }) {
  const { isAdmin } = useRole();
  const trpc = useTRPC();
  const router = useRouter();
  const rerun = useMutation(
    trpc.studies.rerun.mutationOptions({ onSuccess: (created) => router.push(`/studies/${created.id}`) }),
  );
  if (!isAdmin) return null;
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button
        type="button"
        className={smallButtonClass}
        disabled={rerun.isPending}
        onClick={() => rerun.mutate({ studyId, ...(trialId ? { trialId } : {}) })}
        title="A new study on the same image, snapshot, captured files, configuration and limits"
        data-testid={trialId ? "rerun-trial" : "rerun-study"}
      >
        {rerun.isPending ? "Starting the rerun…" : label}
      </button>
      {rerun.error ? (
        <span role="alert" className="text-xs text-danger" data-testid="rerun-error">
          {describeError(rerun.error).message}
        </span>
      ) : null}
    </span>
  );
}
