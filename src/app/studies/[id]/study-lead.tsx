"use client";
import { useMutation } from "@tanstack/react-query";
import { useMemo } from "react";
import { numberedLabel } from "../../../shared/configuration-label";
import { configurationName } from "../../../shared/domain-names";
import { studyHeadline, type StudyHeadline } from "../../../shared/study-headline";
import type { StudyView } from "../../../shared/study-schemas";
import { ACTIVE_TRIAL_STATES, BUSY_STUDY_STATES } from "../../../shared/vocabulary";
import { buttonClass, ErrorMessage, focusRing } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { StudyProgress } from "../study-progress";
import { trialStateLabel } from "../study-format";
import { Elapsed } from "./elapsed";
import { trialLabel } from "./trial-row";
import { useStoreStudy } from "./use-store-study";

/** At most this many running trials are named; the rest are counted. */
const SHOWN_RUNNING = 6;

/** While the study runs: the progress, what runs now (each open trial's configuration and step) and the time since it started. */
function LiveState({ study }: { study: StudyView }) {
  const running = study.trials.filter((trial) => ACTIVE_TRIAL_STATES.includes(trial.state));
  const label = (choice: number) => study.configurations.find((c) => c.choice === choice);
  return (
    <div data-testid="study-live">
      <p className="text-lg font-semibold">
        {study.state === "stopping" ? "Stopping" : "Running"}
        {study.startedAt ? (
          <span className="ml-2 text-sm font-normal text-muted">
            for <Elapsed since={study.startedAt} />
          </span>
        ) : null}
      </p>
      <div className="mt-3 max-w-xl">
        <StudyProgress counts={study.counts} />
      </div>
      {running.length > 0 ? (
        <ul className="mt-3 grid gap-1 text-sm" aria-label="Running now" data-testid="running-now">
          {running.slice(0, SHOWN_RUNNING).map((trial) => {
            const configuration = label(trial.choice);
            return (
              <li key={trial.id} className="flex flex-wrap gap-x-2">
                <span className="font-medium tabular-nums">Trial {trialLabel(trial)}</span>
                <span className="text-muted">
                  {configuration ? numberedLabel(configuration) : configurationName(trial.choice)}
                </span>
                <span className="text-accent">{trial.step || trialStateLabel(trial.state)}</span>
              </li>
            );
          })}
          {running.length > SHOWN_RUNNING ? (
            <li className="text-muted">and {running.length - SHOWN_RUNNING} more running</li>
          ) : null}
        </ul>
      ) : study.counts.queued > 0 ? (
        <p className="mt-3 text-sm text-muted">{study.counts.queued} queued, waiting for a worker slot.</p>
      ) : null}
    </div>
  );
}

/** "Run N more repeats": N more trials of every configuration, in this study (admins only). */
function RunMoreRepeats({ study, headline }: { study: StudyView; headline: StudyHeadline }) {
  const trpc = useTRPC();
  const store = useStoreStudy(study.id);
  const add = useMutation(trpc.studies.addRepeats.mutationOptions({ onSuccess: store }));
  const count = headline.repeatsToAdd;
  if (count === 0)
    return <p className="text-sm text-muted">This study has as many trials as a study can have (200).</p>;
  const configurations = headline.results.length;
  return (
    <div className="flex flex-wrap items-center gap-3">
      <button
        type="button"
        className={`${buttonClass} ${focusRing}`}
        disabled={add.isPending}
        onClick={() => add.mutate({ studyId: study.id, repeats: count })}
        title={`Adds ${count} trial${count === 1 ? "" : "s"} of each of the ${configurations} configuration${configurations === 1 ? "" : "s"} to this study, on the same snapshot, environment image and captured test files`}
        data-testid="run-more-repeats"
      >
        {add.isPending ? "Adding repeats…" : `Run ${count} more repeat${count === 1 ? "" : "s"}`}
      </button>
      {add.error ? <ErrorMessage>{describeError(add.error).message}</ErrorMessage> : null}
    </div>
  );
}

/** Once every trial has ended: each configuration's result, best first, what the comparisons say, and more repeats. */
function Verdict({ study, headline, isAdmin }: { study: StudyView; headline: StudyHeadline; isAdmin: boolean }) {
  return (
    <div>
      <h2 className="text-xs font-semibold uppercase tracking-wide text-muted">Verdict</h2>
      <p className="mt-1 text-lg font-semibold leading-snug break-words" data-testid="study-headline">
        {headline.sentence}
      </p>
      {headline.comparison ? (
        <p className="mt-1 text-sm" data-testid="study-headline-comparison">
          {headline.comparison[0]?.toUpperCase()}
          {headline.comparison.slice(1)}.
        </p>
      ) : null}
      <div className="mt-3 max-w-xl">
        <StudyProgress counts={study.counts} />
      </div>
      {isAdmin ? (
        <div className="mt-4">
          <RunMoreRepeats study={study} headline={headline} />
        </div>
      ) : null}
    </div>
  );
}

/** What leads the study page: the live state while it runs, the verdict headline once its trials end. */
export function StudyLead({ study, isAdmin }: { study: StudyView; isAdmin: boolean }) {
  const headline = useMemo(
    () => studyHeadline({ configurations: study.configurations, trials: study.trials }),
    [study.configurations, study.trials],
  );
  const busy = BUSY_STUDY_STATES.includes(study.state);
  if (study.state === "preflight" || (!busy && !headline)) return null;
  return (
    <section
      aria-label={busy ? "Live state" : "Verdict"}
      className="mb-6 rounded-xl border border-line bg-panel p-5"
      data-testid="study-lead"
    >
      {busy || !headline ? (
        <LiveState study={study} />
      ) : (
        <Verdict study={study} headline={headline} isAdmin={isAdmin} />
      )}
    </section>
  );
}
