"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { buttonClass, ErrorMessage, Spinner } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";

/**
 * "Try the demo": the calendar task as a project of its own and a study of three efforts with its 23
 * checks, opened as soon as it starts. Without model access it runs on the bundled scripted model.
 */
export function TryDemo() {
  const trpc = useTRPC();
  const router = useRouter();
  const [scripted, setScripted] = useState(false);
  const start = useMutation(
    trpc.demo.start.mutationOptions({ onSuccess: (demo) => router.push(`/studies/${demo.studyId}`) }),
  );
  return (
    <div className="mt-5 grid justify-items-center gap-3">
      <button
        type="button"
        className={buttonClass}
        disabled={start.isPending}
        onClick={() => start.mutate({ task: "calendar", scripted, directory: null })}
      >
        Try the demo
      </button>
      <label className="flex items-center gap-2 text-xs text-muted">
        <input type="checkbox" checked={scripted} onChange={(event) => setScripted(event.target.checked)} />
        Run on the scripted model (offline; used anyway without model access)
      </label>
      {start.isPending ? (
        <p role="status" className="flex items-center gap-2 text-sm text-muted">
          <Spinner /> Preparing the demo: copying the calendar task and building its environment (about half a minute
          the first time)…
        </p>
      ) : null}
      {start.isError ? <ErrorMessage>{describeError(start.error).message}</ErrorMessage> : null}
    </div>
  );
}
