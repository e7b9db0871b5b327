import type { StudyState, TrialState } from "../../shared/vocabulary";
import { studyStateStyle, trialStateStyle } from "./study-format";

export function StudyStateBadge({ state }: { state: StudyState }) {
  return (
    <span className={`inline-block rounded-full border px-2 py-0.5 text-xs ${studyStateStyle[state]}`}>{state}</span>
  );
}

export function TrialStateBadge({ state }: { state: TrialState }) {
  return (
    <span className={`inline-block rounded-full border px-2 py-0.5 text-xs ${trialStateStyle[state]}`}>{state}</span>
  );
}
