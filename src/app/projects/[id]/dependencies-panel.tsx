"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { rooms } from "../../../shared/event-catalog";
import { buttonClass, ErrorMessage, Fact, Panel, secondaryButtonClass, warnBoxClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { useLiveQuery } from "../../_lib/use-live-query";
import { DependencyStepForm } from "./dependency-step-form";
import { describeRuntime } from "../../../shared/runtime-labels";

const refetchOn = (event: InvariantEvent) => event.type === "environment.finished";

/**
 * The project's dependency step: what it runs (detected from the manifests, or edited), what the
 * active environment version has installed, and a warning when the manifests moved on since. The
 * step runs as an environment build: its progress and log show in the Environment panel.
 */
export function DependenciesPanel({ projectId, readOnly }: { projectId: string; readOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.dependencies.status.queryOptions({ projectId }));
  const overview = useQuery(trpc.environments.overview.queryOptions({ projectId }));
  const building = overview.data?.versions.some((v) => v.status === "building") ?? false;
  const queryKeys = useMemo(() => [trpc.dependencies.pathKey()], [trpc]);
  useLiveQuery({ room: rooms.project(projectId), queryKeys, refetchOn });
  const refresh = useCallback(async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.dependencies.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.environments.pathKey() });
  }, [queryClient, trpc]);
  const install = useMutation(trpc.dependencies.install.mutationOptions({ onSuccess: refresh }));
  const data = status.data;
  return (
    <Panel title="Dependencies" className="mb-6">
      <div id="dependencies" />
      {status.isPending ? <p className="text-sm text-muted">Loading dependencies…</p> : null}
      {status.error ? <ErrorMessage>{describeError(status.error).message}</ErrorMessage> : null}
      {data?.warning ? (
        <div role="status" data-testid="dependency-warning" className={`${warnBoxClass} mb-3`}>
          {data.warning}
        </div>
      ) : null}
      {data ? (
        <dl className="mb-3 grid gap-2 text-sm sm:grid-cols-2">
          <Fact label={data.edited ? "Step (edited)" : "Step (detected from the manifests)"}>
            {data.step ? <code className="font-mono">{data.step.command}</code> : "none: no manifest found"}
          </Fact>
          <Fact label="Installed">
            {data.installed
              ? `in version ${data.installed.version}: ${data.installed.outputs.join(", ") || "in the image"} from ${data.installed.manifests.map((m) => m.path).join(", ")}`
              : data.nothingToInstall
                ? `nothing to install: ${data.step?.manifests.join(", ") ?? "the manifests"} declare no packages`
                : "nothing yet"}
          </Fact>
          {data.installed?.runtimeReport?.length ? (
            <Fact label="Runtimes">
              <ul data-testid="runtimes">
                {data.installed.runtimeReport.map((report) => (
                  <li key={report.runtime}>{describeRuntime(report)}</li>
                ))}
              </ul>
            </Fact>
          ) : null}
        </dl>
      ) : null}
      <p className="mb-3 text-sm text-muted">
        Installing runs the step with network in a container of the active version, with the manifests of a fresh
        snapshot at /workspace. The result is a new environment version; trials and sessions find its folders (for
        example node_modules, .venv) in their workspace, but they never enter a snapshot, diff, apply or report.
      </p>
      {!readOnly && data ? (
        <>
          <button
            type="button"
            className={data.warning ? buttonClass : secondaryButtonClass}
            disabled={building || install.isPending || !data.step}
            onClick={() => install.mutate({ projectId })}
          >
            {data.installed ? "Install dependencies again" : "Install dependencies"}
          </button>
          {install.error ? (
            <ErrorMessage className="mt-2 text-sm">{describeError(install.error).message}</ErrorMessage>
          ) : null}
          <DependencyStepForm key={JSON.stringify(data.step)} projectId={projectId} status={data} onSaved={refresh} />
        </>
      ) : null}
    </Panel>
  );
}
