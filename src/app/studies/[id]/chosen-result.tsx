"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import type { StudyChoiceView, StudyView } from "../../../shared/study-schemas";
import { focusRing } from "../../_components/ui";
import { useTRPC } from "../../_lib/trpc";
import { formatDateTime, formatVerdict } from "../study-format";
import { trialName } from "../../../shared/domain-names";

/** The small "chosen" pill: this trial is the study's kept result. */
export function ChosenBadge({ label = "chosen" }: { label?: string }) {
  return (
    <span
      className="inline-block rounded-full border border-ok-strong/60 bg-ok-strong/10 px-2 py-0.5 text-xs font-medium text-ok-soft"
      title="The study's chosen result"
    >
      {label}
    </span>
  );
}

/** The note of a choice (if any) and who chose it when. */
export function ChoiceNote({ choice }: { choice: StudyChoiceView }) {
  return (
    <>
      {choice.note ? (
        <q className="whitespace-pre-wrap text-ink" data-testid="chosen-note">
          {choice.note}
        </q>
      ) : null}
      <span className="text-xs text-muted">
        {choice.note ? " — " : ""}chosen by {choice.by}, {formatDateTime(choice.at)}
      </span>
    </>
  );
}

/**
 * A trial row's marker when it is the chosen result. It reads the study (the page's `studies.get`, already
 * cached) itself, so the row needs no extra prop and re-renders only when its answer changes.
 */
export function ChosenTrialMarker({ trialId }: { trialId: string }) {
  const { id: studyId } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const chosen = useQuery(
    trpc.studies.get.queryOptions({ studyId }, { select: (study) => study.chosen?.trialId === trialId }),
  );
  if (!chosen.data) return null;
  return (
    <span className="ml-1" data-testid="chosen-marker">
      <ChosenBadge />
    </span>
  );
}

/** The study header's line about its chosen result: which trial, its verdict, the note; a link to its review. */
export function ChosenResultLine({ study }: { study: StudyView }) {
  const choice = study.chosen;
  if (!choice) return null;
  const trial = study.trials.find((candidate) => candidate.id === choice.trialId);
  const configuration = study.configurations.find((candidate) => candidate.choice === trial?.choice);
  return (
    <p className="mt-2 flex flex-wrap items-baseline gap-x-2 gap-y-1 text-sm" data-testid="chosen-result">
      <ChosenBadge label="chosen result" />
      <span>
        {trial ? trialName(trial) : "A trial no longer listed"}
        {configuration ? ` · ${configuration.label}` : ""}
        {trial ? ` · tests ${formatVerdict(trial.verdict)}` : ""}
      </span>
      <Link
        href={`/studies/${study.id}/trials/${choice.trialId}`}
        className={`text-xs text-accent hover:underline ${focusRing}`}
      >
        Review
      </Link>
      <span>
        <ChoiceNote choice={choice} />
      </span>
    </p>
  );
}
