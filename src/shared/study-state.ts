import type { StudyState } from "./vocabulary";

/** A study's state as the product shows it: the stored state, except that a study none of whose trials ran to an end says so. */
export type ShownStudyState = StudyState | "interrupted";

/**
 * `done` means every trial ended; when each of them ended `interrupted` (their worker died or stopped),
 * nothing of the study ran to an end, so it is shown `interrupted` (Retry runs the trials again). The
 * stored state stays `done`: the state machine has nothing left to run either way.
 */
export function shownStudyState(state: StudyState, counts: { total: number; interrupted: number }): ShownStudyState {
  return state === "done" && counts.total > 0 && counts.interrupted === counts.total ? "interrupted" : state;
}
