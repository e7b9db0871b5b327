"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import type { InvariantEvent } from "../../shared/event-catalog";
import { rooms } from "../../shared/event-catalog";
import type { StudySummaryView } from "../../shared/study-schemas";
import { DataTable, type Column } from "../_components/data-table";
import { LiveIndicator } from "../_components/live-indicator";
import { QueryState } from "../_components/query-state";
import { buttonClass, EmptyState, focusRing, inputClass, PageHeader } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { useTRPC } from "../_lib/trpc";
import { useLiveQuery } from "../_lib/use-live-query";
import { ChosenBadge } from "./[id]/chosen-result";
import { StudyStateBadge } from "./state-badge";
import { formatBaseline, formatDateTime, formatVerdict } from "./study-format";
import { StudyProgress } from "./study-progress";

const LIST_EVENTS = new Set(["trial.started", "trial.finished"]);
const refetchOn = (event: InvariantEvent) => event.type.startsWith("study.") || LIST_EVENTS.has(event.type);

/** Every study on this host (or one project's), newest first, kept current by the system room's events. */
export function StudyList({ projectId }: { projectId: string | null }) {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const studies = useQuery(trpc.studies.list.queryOptions(projectId ? { projectId } : {}));
  const queryKeys = useMemo(() => [trpc.studies.list.queryKey()], [trpc]);
  useLiveQuery({ room: rooms.system, queryKeys, refetchOn });

  const sorted = useMemo(
    () => (studies.data ? [...studies.data].sort((a, b) => b.createdAt.localeCompare(a.createdAt)) : undefined),
    [studies.data],
  );
  const newHref = projectId ? `/studies/new?projectId=${encodeURIComponent(projectId)}` : "/studies/new";

  return (
    <>
      <PageHeader
        title="Studies"
        description="Experiments: several agent configurations on one task, judged by the same captured tests."
        actions={
          <div className="flex items-center gap-3">
            <LiveIndicator />
            {isAdmin ? (
              <Link href={newHref} className={`${buttonClass} ${focusRing}`}>
                New study
              </Link>
            ) : null}
          </div>
        }
      />
      <ProjectFilter projectId={projectId} />
      <QueryState
        query={{ data: sorted, error: studies.error, isPending: studies.isPending }}
        loading="Loading studies…"
        errorPrefix="Could not load studies"
        isEmpty={(list) => list.length === 0}
        empty={
          <EmptyState title={projectId ? "No studies of this project yet" : "No studies yet"}>
            A study starts from a project with a prepared environment.{" "}
            {isAdmin ? (
              <Link href={newHref} className="text-accent underline">
                Start one
              </Link>
            ) : (
              "An admin of this invariant-web can start one"
            )}
            ; every study anyone starts on this host appears here. To watch a whole study first, run{" "}
            <code>invariant-web demo</code> (or <strong>Try the demo</strong> while the Projects page is empty).
          </EmptyState>
        }
      >
        {(list) => <StudyTable studies={list} />}
      </QueryState>
    </>
  );
}

/** "Show studies of": all projects or one (the choice lives in the URL). */
function ProjectFilter({ projectId }: { projectId: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const projects = useQuery(trpc.projects.list.queryOptions());
  const projectName = projects.data?.find((project) => project.id === projectId)?.name;
  return (
    <div className="mb-4 flex items-center gap-3">
      <label htmlFor="study-project-filter" className="text-sm text-muted">
        Show studies of
      </label>
      <select
        id="study-project-filter"
        className={`${inputClass} max-w-xs`}
        value={projectId ?? ""}
        onChange={(e) =>
          router.push(e.target.value ? `/studies?projectId=${encodeURIComponent(e.target.value)}` : "/studies")
        }
      >
        <option value="">all projects</option>
        {projectId && !projectName ? <option value={projectId}>{projectId}</option> : null}
        {(projects.data ?? []).map((project) => (
          <option key={project.id} value={project.id}>
            {project.name}
          </option>
        ))}
      </select>
    </div>
  );
}

const studyColumns: Column<StudySummaryView>[] = [
  {
    key: "title",
    header: "Study",
    cell: (study) => (
      <>
        <Link href={`/studies/${study.id}`} className={`font-medium hover:text-accent hover:underline ${focusRing}`}>
          {study.title}
        </Link>
        {study.chosen ? (
          <span className="ml-2" data-testid="study-chosen" title="A result was chosen">
            <ChosenBadge />
          </span>
        ) : null}
      </>
    ),
  },
  {
    key: "project",
    header: "Project",
    cell: (study) => (
      <Link href={`/projects/${study.projectId}`} className={`text-muted hover:text-ink hover:underline ${focusRing}`}>
        {study.projectName}
      </Link>
    ),
  },
  { key: "state", header: "State", cell: (study) => <StudyStateBadge state={study.shownState} /> },
  { key: "progress", header: "Progress", cell: (study) => <StudyProgress counts={study.counts} /> },
  {
    key: "baseline",
    header: "Baseline",
    className: "text-xs",
    cell: (study) =>
      study.state === "refused" ? (
        <span className="text-danger-soft">refused</span>
      ) : study.baseline ? (
        <span title={`Baseline: ${formatBaseline(study.baseline)}`}>{formatVerdict(study.baseline)}</span>
      ) : (
        "—"
      ),
  },
  {
    key: "created",
    header: "Created",
    className: "whitespace-nowrap text-xs text-muted",
    cell: (study) => formatDateTime(study.createdAt),
  },
];

function StudyTable({ studies }: { studies: readonly StudySummaryView[] }) {
  return (
    <DataTable
      label="Studies"
      density="inset"
      wrapperClassName="overflow-x-auto rounded-xl border border-line bg-panel"
      columns={studyColumns}
      rows={studies}
      rowKey={(study) => study.id}
      rowClassName="border-t border-line align-top"
      rowProps={(study) => ({ "data-testid": "study-row", "data-state": study.state })}
    />
  );
}
