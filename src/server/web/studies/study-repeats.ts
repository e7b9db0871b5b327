import { AppError } from "../../core/errors/app-error";
import { budgetReached } from "../../../shared/study-costs";
import { MAX_TRIALS_PER_STUDY } from "../../../shared/study-inputs";
import { addRepeatsInputSchema, type AddRepeatsInput } from "../../../shared/study-repeats";
import type { StudyView } from "../../../shared/study-schemas";
import type { StudyState } from "../../../shared/vocabulary";
import { studySpend } from "./study-budget";
import { announceStudyChange, requireStudy, type StudyControlDeps } from "./study-control";

/**
 * More repeats of a study that ran: every configuration with trials gets `repeats` more, in the same
 * study. That is sound because a study freezes its snapshot, environment image, captured test files,
 * test command and limits when it is created, and every trial (the first ones, retries, added repeats)
 * is dispatched from those frozen facts; the new trials' manifests record the same parts. The study
 * goes back to `running` until they end, so its aggregates and comparisons grow with them.
 */

function refusal(state: StudyState | null): string {
  if (state === "preflight") return "Wait for the preflight to finish.";
  if (state === "refused")
    return "The preflight refused this study: it has no trials to repeat. Fix the test command and create a new study.";
  if (state === "stopping") return "This study is stopping; add repeats once it has stopped.";
  return "This study can take no more repeats now.";
}

function checkRoom(study: StudyView, repeats: number): void {
  const withTrials = study.configurations.filter((c) => study.trials.some((trial) => trial.choice === c.choice));
  if (withTrials.length === 0)
    throw new AppError({
      code: "CONFLICT",
      message: "This study has no trials to repeat (it stopped before any started).",
    });
  const after = study.trials.length + repeats * withTrials.length;
  if (after > MAX_TRIALS_PER_STUDY)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "repeats",
      message: `That makes ${after} trials; a study has at most ${MAX_TRIALS_PER_STUDY}. Add at most ${Math.floor((MAX_TRIALS_PER_STUDY - study.trials.length) / withTrials.length)} repeats.`,
    });
}

/** Adds the repeats, or refuses with the reason (the study's state, its trial cap, its spent budget). */
export async function addRepeats(deps: StudyControlDeps, input: AddRepeatsInput, by: string): Promise<StudyView> {
  const { studyId, repeats } = addRepeatsInputSchema.parse(input);
  const found = await requireStudy(deps.studies, studyId);
  if (found.state === "preflight" || found.state === "refused" || found.state === "stopping")
    throw new AppError({ code: "CONFLICT", message: refusal(found.state) });
  checkRoom(found, repeats);
  const spentReason = budgetReached({ budget: found.budget, ...(await studySpend(deps.studies, found)) });
  if (spentReason)
    throw new AppError({
      code: "CONFLICT",
      message: `${spentReason.replace(/; the queued trials were stopped\.$/, ".")} More repeats would be stopped before they start.`,
    });
  const added = await deps.studies.addRepeats({ studyId, repeats, now: deps.now() });
  if (!added.ok) throw new AppError({ code: "CONFLICT", message: refusal(added.state) });
  await deps.dispatcher.topUp(studyId);
  const reason = `${repeats} repeat${repeats === 1 ? "" : "s"} added to ${added.configurations} configuration${added.configurations === 1 ? "" : "s"} by ${by}.`;
  deps.log(`studies: ${studyId}: ${reason}`);
  await announceStudyChange(deps, { studyId, projectId: found.projectId, reason, trialIds: added.trialIds });
  return requireStudy(deps.studies, studyId);
}
