"use client";
import Link from "next/link";
import type { StudyView } from "../../../shared/study-schemas";
import { LiveIndicator } from "../../_components/live-indicator";
import { focusRing, smallButtonClass } from "../../_components/ui";
import { StudyStateBadge } from "../state-badge";
import { DeleteStudy } from "./delete-study";
import { formatDateTime } from "../study-format";
import { ChosenResultLine } from "./chosen-result";
import { CompareTrialsLink } from "./_review/review-links";
import { StopPendingNote, StopStudy } from "./stop-study";
import { RerunButton } from "./rerun-button";
import { useRole } from "../../_components/use-role";
import { FINISHED_STUDY_STATES, isTerminalTrialState } from "../../../shared/vocabulary";

/** Trials that ended with something to compare: a verdict or recorded changes. */
function trialsWithResults(study: StudyView): string[] {
  return study.trials
    .filter((trial) => isTerminalTrialState(trial.state) && (trial.verdict !== null || trial.diff !== null))
    .map((trial) => trial.id);
}

/**
 * The header's actions in one row that wraps cleanly: the primary action first (Stop while it runs), then
 * Compare trials (two trials with results), Rerun study (a finished study with manifests), New study like
 * this, the reports and Delete. Nothing that cannot work yet is shown: during the preflight, on a refused
 * study or without trials there is nothing to compare or rerun.
 */
function HeaderActions(props: {
  study: StudyView;
  canStop: boolean;
  canDelete: boolean;
  stopping: boolean;
  onStop: () => void;
  stopError: string | null;
}) {
  const { study } = props;
  const { isAdmin } = useRole();
  const compared = trialsWithResults(study);
  const ran = FINISHED_STUDY_STATES.includes(study.state) && study.state !== "refused";
  const canRerun = isAdmin && ran && study.trials.some((trial) => trial.manifest);
  return (
    <div className="mt-3 flex flex-wrap items-center gap-2" data-testid="study-actions">
      {props.canStop ? (
        <StopStudy study={study} stopping={props.stopping} onStop={props.onStop} error={props.stopError} />
      ) : null}
      {compared.length >= 2 ? <CompareTrialsLink studyId={study.id} trialIds={compared} /> : null}
      {canRerun ? <RerunButton studyId={study.id} label="Rerun study" /> : null}
      {isAdmin ? (
        <Link href={`/studies/new?from=${study.id}`} className={smallButtonClass} data-testid="new-study-like-this">
          New study like this
        </Link>
      ) : null}
      <ReportLinks studyId={study.id} />
      {props.canDelete ? <DeleteStudy study={study} /> : null}
    </div>
  );
}

/** Title, state, project, times; the actions in one row under them. */
export function StudyHeader(props: {
  study: StudyView;
  canStop: boolean;
  canDelete: boolean;
  stopping: boolean;
  onStop: () => void;
  stopError: string | null;
}) {
  const { study } = props;
  return (
    <div className="mb-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight break-words">{study.title}</h1>
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
      <HeaderActions {...props} />
      <StopPendingNote study={study} />
    </div>
  );
}

function ReportLinks({ studyId }: { studyId: string }) {
  const link = smallButtonClass;
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
