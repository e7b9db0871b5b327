"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { RecordedEvent } from "../../shared/event-catalog";
import type { StudySummaryView } from "../../shared/study-schemas";
import { LiveIndicator } from "../_components/live-indicator";
import { buttonClass, EmptyState, inputClass, PageHeader } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { describeError } from "../_lib/errors";
import { useRoomEvents, useSocketConnected } from "../_lib/socket";
import { useTRPC } from "../_lib/trpc";
import { StudyStateBadge } from "./state-badge";
import { focusRing, formatBaseline, formatDateTime } from "./study-format";
import { StudyProgress } from "./study-progress";
import { useThrottledCallback } from "./use-throttled";

const LIST_EVENTS = new Set(["trial.started", "trial.finished"]);

/** Every study on this host (or one project's), newest first, kept current by the system room's events. */
export function StudyList({ projectId }: { projectId: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { isAdmin } = useRole();
  const connected = useSocketConnected();
  const studies = useQuery(
    trpc.studies.list.queryOptions(projectId ? { projectId } : {}, { refetchInterval: connected ? false : 5_000 }),
  );
  const projects = useQuery(trpc.projects.list.queryOptions());

  const refresh = useThrottledCallback(
    () => void queryClient.invalidateQueries({ queryKey: trpc.studies.list.queryKey() }),
    300,
  );
  const onEvent = useCallback(
    ({ event }: RecordedEvent) => {
      if (event.type.startsWith("study.") || LIST_EVENTS.has(event.type)) refresh();
    },
    [refresh],
  );
  useRoomEvents("system", onEvent);

  const sorted = useMemo(
    () => [...(studies.data ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    [studies.data],
  );
  const projectName = projects.data?.find((project) => project.id === projectId)?.name;
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
      {studies.isPending ? <p className="text-muted">Loading studies…</p> : null}
      {studies.error ? (
        <p role="alert" className="text-red-400">
          Could not load studies: {describeError(studies.error).message}
        </p>
      ) : null}
      {studies.data && sorted.length === 0 ? (
        <EmptyState title={projectId ? "No studies of this project yet" : "No studies yet"}>
          A study starts from a project with a prepared environment.{" "}
          {isAdmin ? (
            <Link href={newHref} className="text-accent underline">
              Start one
            </Link>
          ) : (
            "An admin of this invariant-web can start one"
          )}
          ; every study anyone starts on this host appears here.
        </EmptyState>
      ) : null}
      {sorted.length > 0 ? <StudyTable studies={sorted} /> : null}
    </>
  );
}

function StudyTable({ studies }: { studies: StudySummaryView[] }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-line bg-panel">
      <table className="w-full text-left text-sm" aria-label="Studies">
        <thead className="text-xs uppercase text-muted">
          <tr>
            <th className="px-4 py-2">Study</th>
            <th className="px-2">Project</th>
            <th className="px-2">State</th>
            <th className="px-2">Progress</th>
            <th className="px-2">Baseline</th>
            <th className="px-4">Created</th>
          </tr>
        </thead>
        <tbody>
          {studies.map((study) => (
            <tr
              key={study.id}
              className="border-t border-line align-top"
              data-testid="study-row"
              data-state={study.state}
            >
              <td className="px-4 py-2.5">
                <Link
                  href={`/studies/${study.id}`}
                  className={`font-medium hover:text-accent hover:underline ${focusRing}`}
                >
                  {study.title}
                </Link>
              </td>
              <td className="px-2 py-2.5">
                <Link
                  href={`/projects/${study.projectId}`}
                  className={`text-muted hover:text-ink hover:underline ${focusRing}`}
                >
                  {study.projectName}
                </Link>
              </td>
              <td className="px-2 py-2.5">
                <StudyStateBadge state={study.state} />
              </td>
              <td className="px-2 py-2.5">
                <StudyProgress counts={study.counts} />
              </td>
              <td className="px-2 py-2.5 text-xs">
                {study.state === "refused" ? (
                  <span className="text-red-300">refused</span>
                ) : study.baseline ? (
                  formatBaseline(study.baseline)
                ) : (
                  "—"
                )}
              </td>
              <td className="whitespace-nowrap px-4 py-2.5 text-xs text-muted">{formatDateTime(study.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
