"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { Panel } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";
import { useTRPC } from "../../_lib/trpc";
import { EnvironmentActions } from "./environment-actions";
import { EnvironmentVersionsTable } from "./environment-versions-table";
import { useEnvironment } from "./use-environment";

function BuildProgress({ version, progress }: { version: number; progress: number | null }) {
  return (
    <div className="mb-4" role="status" aria-label="Build progress">
      <p className="mb-1 text-sm">Preparing version {version}…</p>
      <div className="h-2 overflow-hidden rounded bg-line">
        <div
          className={`h-full bg-accent transition-all ${progress === null ? "w-1/3 animate-pulse" : ""}`}
          style={progress === null ? undefined : { width: `${Math.round(progress * 100)}%` }}
        />
      </div>
    </div>
  );
}

/** A project's environment: its versions, preparing and rebuilding, the live build log. */
export function EnvironmentPanel({ projectId, readOnly }: { projectId: string; readOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const env = useEnvironment(projectId);
  const { overview, versions, active, building } = env;
  const refresh = useCallback(
    () => queryClient.invalidateQueries({ queryKey: trpc.environments.pathKey() }),
    [queryClient, trpc],
  );
  const activate = useMutation(trpc.environments.activate.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.environments.remove.mutationOptions({ onSuccess: refresh }));

  return (
    <Panel title="Environment" className="mb-6">
      {overview.isPending ? <p className="text-sm text-muted">Loading environment…</p> : null}
      {overview.data && versions.length === 0 ? (
        <p className="mb-3 text-sm text-muted">
          No environment yet. Preparing builds version 1 from the base image: the Codex CLI and a home directory that
          persists. Later changes (tools, packages, config) become new versions you can roll back.
        </p>
      ) : null}
      {overview.data && versions.length > 0 ? (
        <p className="mb-3 text-sm text-muted">
          Active: {active ? <strong className="text-ink">version {active.version}</strong> : "none"} · disk used by this
          project&apos;s environments: {formatBytes(overview.data.diskBytes)}
        </p>
      ) : null}
      {!readOnly ? (
        <EnvironmentActions
          projectId={projectId}
          versions={versions}
          active={active}
          building={building !== null}
          refresh={refresh}
          otherError={activate.error ?? remove.error}
        />
      ) : null}
      {building ? <BuildProgress version={building.version} progress={env.progress} /> : null}
      {versions.length > 0 ? (
        <EnvironmentVersionsTable
          versions={versions}
          readOnly={readOnly}
          onShowLog={env.showLog}
          onActivate={(versionId) => activate.mutate({ versionId })}
          onRemove={(versionId) => remove.mutate({ versionId })}
        />
      ) : null}
      {env.logVersion ? (
        <pre
          aria-label="Build log"
          className="max-h-72 overflow-auto rounded-md border border-line bg-canvas p-3 font-mono text-xs text-muted"
        >
          {env.log || "No output yet."}
        </pre>
      ) : null}
    </Panel>
  );
}
