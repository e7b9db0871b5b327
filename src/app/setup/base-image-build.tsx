"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { ErrorMessage, secondaryButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";

/** "Build the base image": starts scripts/base-image.mjs on the host and shows its output as it goes. */
export function BaseImageBuild() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const build = useQuery({
    ...trpc.setup.baseImageBuild.queryOptions(),
    refetchInterval: (query) => (query.state.data?.running ? 1000 : false),
  });
  const start = useMutation(
    trpc.setup.buildBaseImage.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.setup.baseImageBuild.queryKey() }),
    }),
  );
  const finished = build.data && !build.data.running ? build.data.finishedAt : null;
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: trpc.setup.status.queryKey() });
  }, [finished, queryClient, trpc]);
  const state = build.data;
  return (
    <div className="mt-2 grid gap-2">
      <button
        type="button"
        className={`${secondaryButtonClass} justify-self-start`}
        disabled={start.isPending || state?.running === true}
        onClick={() => start.mutate()}
      >
        {state?.running ? "Building the base image…" : "Build the base image"}
      </button>
      {start.isError ? <ErrorMessage>{describeError(start.error).message}</ErrorMessage> : null}
      {state ? (
        <div>
          <p className="text-xs text-muted" role="status">
            {state.running
              ? "Building (about a minute)…"
              : state.exitCode === 0
                ? "Built."
                : `The build failed (exit code ${state.exitCode ?? "?"}); its output is below.`}
          </p>
          <pre
            className="mt-1 max-h-48 overflow-auto rounded bg-canvas p-2 font-mono text-xs"
            data-testid="base-image-output"
          >
            {state.output || "…"}
          </pre>
        </div>
      ) : null}
    </div>
  );
}
