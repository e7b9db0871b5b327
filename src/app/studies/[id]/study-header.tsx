"use client";
import Link from "next/link";
import type { StudyView } from "../../../shared/study-schemas";
import { LiveIndicator } from "../../_components/live-indicator";
import { focusRing } from "../../_components/ui";
import { StudyStateBadge } from "../state-badge";
import { DeleteStudy } from "./delete-study";
import { formatDateTime } from "../study-format";
import { ChosenResultLine } from "./chosen-result";
import { CompareTrialsLink } from "./_review/review-links";
import { StudyFactsPanel } from "./study-facts-panel";
import { StopPendingNote, StopStudy } from "./stop-study";
import { RerunButton } from "./rerun-button";
import { useRole } from "../../_components/use-role";

/** Title, state, project, times, Stop or Delete; then what was frozen (the study panel). */
export function StudyHeader({
  study,
  canStop,
  canDelete,
  stopping,
  onStop,
  stopError,
}: {
  study: StudyView;
  canStop: boolean;
  canDelete: boolean;
  stopping: boolean;
  onStop: () => void;
  stopError: string | null;
}) {
  const { isAdmin } = useRole();
  return (
    <>
      <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
        <div>
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-semibold tracking-tight">{study.title}</h1>
            <span data-testid="study-state" data-state={study.state}>
              <StudyStateBadge state={study.shownState} />
            </span>
            <LiveIndicator />
          </div>
          <p className="mt-1 text-sm text-muted">
            <Link href={`/projects/${study.projectId}`} className={`text-accent hover:underline ${focusRing}`}>
              {study.projectName}
            </Link>
            {" · "}created {formatDateTime(study.createdAt)} by {study.createdBy}
            {study.startedAt ? ` · started ${formatDateTime(study.startedAt)}` : ""}
            {study.finishedAt ? ` · finished ${formatDateTime(study.finishedAt)}` : ""}
          </p>
          <ChosenResultLine study={study} />
          {study.rerunOf ? (
            <p className="mt-1 text-sm text-muted" data-testid="rerun-of">
              Rerun of{" "}
              <Link href={`/studies/${study.rerunOf.studyId}`} className={`text-accent hover:underline ${focusRing}`}>
                {study.rerunOf.trialId ? "one trial of another study" : "another study"}
              </Link>{" "}
              from its manifests.
            </p>
          ) : null}
        </div>
        <div className="ml-auto flex flex-col items-end gap-2">
          <div className="flex items-center gap-2">
            <CompareTrialsLink studyId={study.id} trialIds={study.trials.map((trial) => trial.id)} />
            <ReportLinks studyId={study.id} />
          </div>
          {isAdmin ? (
            <div className="flex items-center gap-2">
              <Link
                href={`/studies/new?from=${study.id}`}
                className={`rounded border border-line px-2 py-1 text-xs hover:border-muted ${focusRing}`}
                data-testid="new-study-like-this"
              >
                New study like this
              </Link>
              {study.trials.some((trial) => trial.manifest) ? (
                <RerunButton studyId={study.id} label="Rerun study" />
              ) : null}
            </div>
          ) : null}
          {canStop ? <StopStudy study={study} stopping={stopping} onStop={onStop} error={stopError} /> : null}
          <StopPendingNote study={study} />
          {canDelete ? <DeleteStudy study={study} /> : null}
        </div>
      </div>

      <StudyFactsPanel study={study} />
    </>
  );
}

function ReportLinks({ studyId }: { studyId: string }) {
  const link = `rounded border border-line px-2 py-1 text-xs hover:border-muted ${focusRing}`;
  return (
    <div className="flex items-center gap-2 text-xs text-muted" role="group" aria-label="Reports">
      <span>Report:</span>
      <a href={`/api/studies/${studyId}/report.md`} download className={link}>
        Markdown
      </a>
      <a href={`/api/studies/${studyId}/report.json`} download className={link}>
        JSON
      </a>
      <a href={`/api/studies/${studyId}/report.csv`} download className={link}>
        CSV
      </a>
    </div>
  );
}
