import type { TrialView } from "../../shared/study-schemas";
import type { TrialState } from "../../shared/vocabulary";
import type { ShownStudyState } from "../../shared/study-state";
import { studyStateStyle, trialStateLabel, trialStateStyle } from "./study-format";
import { outcomeLabel, outcomeStyle } from "./verdict-style";

const badge = "inline-block rounded-full border px-2 py-0.5 text-xs";

/** A study's state as shown (`interrupted` when every trial of a done study was: study-state.ts). */
export function StudyStateBadge({ state }: { state: ShownStudyState }) {
  return <span className={`${badge} ${studyStateStyle[state]}`}>{state}</span>;
}

/** A trial's state in the product's words: a `succeeded` run is shown as "completed" (it says nothing of the tests). */
export function TrialStateBadge({ state }: { state: TrialState }) {
  return <span className={`${badge} ${trialStateStyle[state]}`}>{trialStateLabel(state)}</span>;
}

/** How the run ended (completed, agent failed, timed out, …), or where it is while it runs; never the verdict. */
export function TrialOutcomeBadge({ trial }: { trial: Pick<TrialView, "state" | "outcome"> }) {
  const style = trial.outcome ? outcomeStyle[trial.outcome] : trialStateStyle[trial.state];
  return <span className={`${badge} ${style}`}>{outcomeLabel(trial)}</span>;
}
