"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { Panel } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";
import { useTRPC } from "../../_lib/trpc";
import { BuildProgress } from "./build-progress";
import { DevcontainerOption } from "./devcontainer-option";
import { EnvironmentActions } from "./environment-actions";
import { EnvironmentVersionsTable } from "./environment-versions-table";
import type { ProjectEnvironment } from "./use-environment";

/** The id of the Environment panel, which the status's "build log" link jumps to. */
export const ENVIRONMENT_PANEL_ID = "environment";

/** A project's environment: its versions, preparing and rebuilding, the live build log. */
export function EnvironmentPanel({
  projectId,
  env,
  readOnly,
}: {
  projectId: string;
  env: ProjectEnvironment;
  readOnly: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { overview, versions, active, building } = env;
  const refresh = useCallback(
    () => queryClient.invalidateQueries({ queryKey: trpc.environments.pathKey() }),
    [queryClient, trpc],
  );
  const activate = useMutation(trpc.environments.activate.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.environments.remove.mutationOptions({ onSuccess: refresh }));

  return (
    <div id={ENVIRONMENT_PANEL_ID} className="mb-6 scroll-mt-6">
      <Panel title="Environment">
        {overview.isPending ? <p className="text-sm text-muted">Loading environment…</p> : null}
        {overview.data && versions.length === 0 ? (
          <p className="mb-3 text-sm text-muted">
            No environment yet. After version 1, changes (tools, packages, settings) become new versions you can roll
            back.
          </p>
        ) : null}
        {overview.data && versions.length > 0 ? (
          <p className="mb-3 text-sm text-muted">
            Active: {active ? <strong className="text-ink">version {active.version}</strong> : "none"} · disk used by
            this project&apos;s environments: {formatBytes(overview.data.diskBytes)}
          </p>
        ) : null}
        <DevcontainerOption projectId={projectId} building={building !== null} refresh={refresh} readOnly={readOnly} />
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
    </div>
  );
}
