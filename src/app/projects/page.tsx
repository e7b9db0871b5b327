"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../_lib/trpc";
import { QueryState } from "../_components/query-state";
import { dangerBoxClass, EmptyState, focusRing, PageHeader, Panel } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { AddProjectForm } from "./add-project-form";
import { TryDemo } from "./try-demo";
import { EnvironmentState } from "./environment-state";
import { formatBytes } from "../_lib/format";

export default function ProjectsPage() {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const projects = useQuery(trpc.projects.list.queryOptions());

  return (
    <>
      <PageHeader
        title="Projects"
        description="Each project is a directory on this host with its own saved Linux environment."
      />
      {isAdmin ? (
        <Panel title="Add a project" className="mb-6">
          <AddProjectForm />
        </Panel>
      ) : null}
      <QueryState
        query={projects}
        loading="Loading projects…"
        errorPrefix="Could not load projects"
        isEmpty={(list) => list.length === 0}
        empty={
          <EmptyState title="No projects yet">
            {isAdmin
              ? "Add a directory above to get started: invariant-web gives it an isolated environment where agents can work and be compared. Your files stay where they are. Or see a whole study first: the demo fixes a small calendar library at three reasoning efforts and judges each try with the same 23 tests."
              : "Nobody has added a project yet. Ask the admin of this invariant-web to add one."}
            {isAdmin ? <TryDemo /> : null}
          </EmptyState>
        }
      >
        {(list) => (
          <ul className="grid gap-3" aria-label="Projects">
            {list.map((project) => (
              <li key={project.id}>
                <Link
                  href={`/projects/${project.id}`}
                  className={`flex flex-wrap items-center justify-between gap-x-4 gap-y-2 rounded-xl border bg-panel px-5 py-4 hover:border-muted ${project.folder.problem ? "border-danger-strong/60" : "border-line"} ${focusRing}`}
                >
                  <span>
                    <span className="block font-medium">{project.name}</span>
                    <span className="block font-mono text-xs text-muted">{project.hostPath}</span>
                  </span>
                  <span className="text-right text-xs text-muted">
                    <EnvironmentState projectId={project.id} folder={project.folder} />
                    network {project.networkMode} · {project.cpus} CPU · {formatBytes(project.memoryBytes)}
                  </span>
                  {project.folder.problem ? (
                    <span className={`${dangerBoxClass} basis-full`} role="alert" data-testid="project-folder-problem">
                      {project.folder.problem}
                    </span>
                  ) : null}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </>
  );
}
