"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams, useRouter } from "next/navigation";
import { useState } from "react";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { dangerButtonClass, PageHeader, Panel, secondaryButtonClass } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { ProjectStudiesPanel } from "../../studies/project-studies-panel";
import { EnvironmentPanel } from "./environment-panel";
import { SettingsForm } from "./settings-form";

export default function ProjectPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { isAdmin } = useRole();
  const project = useQuery(trpc.projects.get.queryOptions({ id }));
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.projects.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
        router.push("/projects");
      },
    }),
  );

  if (project.isPending) return <p className="text-muted">Loading project…</p>;
  if (project.error)
    return (
      <p role="alert" className="text-red-400">
        {describeError(project.error).message}
      </p>
    );
  const data = project.data;
  return (
    <>
      <PageHeader title={data.name} description={<span className="font-mono">{data.hostPath}</span>} />
      <Panel title="Settings" className="mb-6">
        <SettingsForm key={data.updatedAt} project={data} readOnly={!isAdmin} />
      </Panel>
      <EnvironmentPanel projectId={data.id} readOnly={!isAdmin} />
      <ProjectStudiesPanel projectId={data.id} isAdmin={isAdmin} />
      {isAdmin ? (
        <Panel title="Remove">
          <p className="mb-3 text-sm text-muted">
            Removing forgets this project and deletes what invariant-web keeps for it: its studies with their results,
            its environment images, snapshots and workspaces. The files in {data.hostPath} are never touched.
          </p>
          {confirming ? (
            <div className="flex gap-3">
              <button
                type="button"
                className={dangerButtonClass}
                onClick={() => remove.mutate({ id })}
                disabled={remove.isPending}
              >
                Yes, forget {data.name}
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
            <p role="alert" className="mt-2 text-sm text-red-400">
              {describeError(remove.error).message}
            </p>
          ) : null}
        </Panel>
      ) : null}
    </>
  );
}
