"use client";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { QueryState } from "../../_components/query-state";
import { PageHeader, Panel } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { useTRPC } from "../../_lib/trpc";
import { ProjectSessionsPanel } from "../../sessions/project-sessions-panel";
import { ProjectStudiesPanel } from "../../studies/project-studies-panel";
import { ApplyHistoryPanel } from "./apply-history-panel";
import { DependenciesPanel } from "./dependencies-panel";
import { EnvironmentPanel } from "./environment-panel";
import { FolderProblemBanner } from "./folder-problem-banner";
import { RemoveProjectPanel } from "./remove-project-panel";
import { SettingsForm } from "./settings-form";
import { SettingsFacts } from "./settings-facts";

export default function ProjectPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const project = useQuery(trpc.projects.get.queryOptions({ id }));
  return (
    <QueryState query={project} loading="Loading project…">
      {(data) => (
        <>
          <PageHeader title={data.name} description={<span className="font-mono">{data.hostPath}</span>} />
          <FolderProblemBanner project={data} isAdmin={isAdmin} />
          <Panel title="Settings" className="mb-6">
            {isAdmin ? (
              <SettingsForm key={data.updatedAt} project={data} readOnly={false} />
            ) : (
              <SettingsFacts project={data} />
            )}
          </Panel>
          <EnvironmentPanel projectId={data.id} readOnly={!isAdmin} />
          <DependenciesPanel projectId={data.id} readOnly={!isAdmin} />
          <ProjectStudiesPanel projectId={data.id} isAdmin={isAdmin} />
          <ProjectSessionsPanel projectId={data.id} networkMode={data.networkMode} isAdmin={isAdmin} />
          <ApplyHistoryPanel projectId={data.id} isAdmin={isAdmin} />
          {isAdmin ? <RemoveProjectPanel project={data} /> : null}
        </>
      )}
    </QueryState>
  );
}
