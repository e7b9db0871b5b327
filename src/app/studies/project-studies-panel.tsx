"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { focusRing, Panel, secondaryButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { StudyStateBadge } from "./state-badge";
import { formatDateTime } from "./study-format";
import { StudyProgress } from "./study-progress";

const SHOWN = 10;

/**
 * A project's studies on its page: the newest few, a link to all of them, and "New study" for admins (a secondary
 * button: the page's status leads with it once the environment is ready).
 */
export function ProjectStudiesPanel({ projectId, isAdmin }: { projectId: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const studies = useQuery(trpc.studies.list.queryOptions({ projectId }));
  const sorted = useMemo(
    () => [...(studies.data ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    [studies.data],
  );
  return (
    <Panel title="Studies" className="mb-6">
      <div className="mb-3 flex items-center gap-3">
        {isAdmin ? (
          <Link
            href={`/studies/new?projectId=${encodeURIComponent(projectId)}`}
            className={`${secondaryButtonClass} ${focusRing}`}
          >
            New study
          </Link>
        ) : null}
        {sorted.length > 0 ? (
          <Link
            href={`/studies?projectId=${encodeURIComponent(projectId)}`}
            className={`text-sm text-accent underline ${focusRing}`}
          >
            All {sorted.length} studies of this project
          </Link>
        ) : null}
      </div>
      {studies.error ? <p className="text-sm text-danger">{describeError(studies.error).message}</p> : null}
      {studies.data && sorted.length === 0 ? (
        <p className="text-sm text-muted">
          No studies yet. A study runs several agent configurations on one task and compares them by the same tests.
        </p>
      ) : null}
      {sorted.length > 0 ? (
        <ul className="grid gap-2" aria-label="Recent studies">
          {sorted.slice(0, SHOWN).map((study) => (
            <li
              key={study.id}
              className="flex flex-wrap items-center justify-between gap-3 border-t border-line pt-2 text-sm"
            >
              <span className="flex items-center gap-2">
                <Link
                  href={`/studies/${study.id}`}
                  className={`font-medium hover:text-accent hover:underline ${focusRing}`}
                >
                  {study.title}
                </Link>
                <StudyStateBadge state={study.shownState} />
                <span className="text-xs text-muted">{formatDateTime(study.createdAt)}</span>
              </span>
              <StudyProgress counts={study.counts} />
            </li>
          ))}
        </ul>
      ) : null}
    </Panel>
  );
}
