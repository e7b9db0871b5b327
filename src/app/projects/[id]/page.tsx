"use client";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import type { ProjectView } from "../../../shared/project-schemas";
import { QueryState } from "../../_components/query-state";
import { focusRing, PageHeader } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { useTRPC } from "../../_lib/trpc";
import { ProjectSessionsPanel } from "../../sessions/project-sessions-panel";
import { ProjectStudiesPanel } from "../../studies/project-studies-panel";
import { ApplyHistoryPanel } from "./apply-history-panel";
import { BranchHistoryPanel } from "./branch-history-panel";
import { DependenciesPanel } from "./dependencies-panel";
import { EnvironmentPanel } from "./environment-panel";
import { ProjectStatus } from "./project-status";
import { RemoveProjectPanel } from "./remove-project-panel";
import { openSettings, SettingsSection, SETTINGS_ID } from "./settings-section";
import { useEnvironment } from "./use-environment";

/**
 * The project page, in the order a user needs it: the state and the one next step first, then its studies,
 * sessions and apply history; the environment's versions and dependencies; the settings collapsed near the end.
 */
function ProjectOverview({ project, isAdmin }: { project: ProjectView; isAdmin: boolean }) {
  const env = useEnvironment(project.id);
  return (
    <>
      <PageHeader
        title={project.name}
        description={<span className="break-all font-mono">{project.hostPath}</span>}
        actions={
          <a href={`#${SETTINGS_ID}`} onClick={openSettings} className={`text-sm text-accent underline ${focusRing}`}>
            Settings
          </a>
        }
      />
      <ProjectStatus project={project} env={env} isAdmin={isAdmin} />
      <ProjectStudiesPanel projectId={project.id} isAdmin={isAdmin} />
      <ProjectSessionsPanel projectId={project.id} networkMode={project.networkMode} isAdmin={isAdmin} />
      <ApplyHistoryPanel projectId={project.id} isAdmin={isAdmin} />
      <BranchHistoryPanel projectId={project.id} isAdmin={isAdmin} />
      <EnvironmentPanel projectId={project.id} env={env} readOnly={!isAdmin} />
      <DependenciesPanel projectId={project.id} readOnly={!isAdmin} />
      <SettingsSection project={project} isAdmin={isAdmin} />
      {isAdmin ? <RemoveProjectPanel project={project} /> : null}
    </>
  );
}

export default function ProjectPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const project = useQuery(trpc.projects.get.queryOptions({ id }));
  return (
    <QueryState query={project} loading="Loading project…">
      {(data) => <ProjectOverview project={data} isAdmin={isAdmin} />}
    </QueryState>
  );
}
