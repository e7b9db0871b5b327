import { AppError } from "../../core/errors/app-error";
import type { ChooseTrialInput } from "../../../shared/study-inputs";
import type { StudyView } from "../../../shared/study-schemas";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { announceStudyChange, requireStudy, type StudyControlDeps } from "./study-control";

/**
 * Choosing a study's result: an admin marks one finished trial as the one to keep, with an optional
 * note, or clears the choice. It changes no project files (applying is apply-service's job); every
 * viewer hears of it through `study.changed`.
 */
export async function chooseStudyTrial(
  deps: Pick<StudyControlDeps, "studies" | "publish" | "log" | "now">,
  options: { input: ChooseTrialInput; by: string },
): Promise<StudyView> {
  const { studyId, trialId } = options.input;
  const study = await requireStudy(deps.studies, studyId);
  if (trialId !== null) {
    const trial = study.trials.find((candidate) => candidate.id === trialId);
    if (!trial)
      throw new AppError({
        code: "BAD_REQUEST",
        field: "trialId",
        message: `Trial ${trialId} is not a trial of the study "${study.title}".`,
      });
    if (!isTerminalTrialState(trial.state))
      throw new AppError({
        code: "CONFLICT",
        field: "trialId",
        message: `That trial (configuration ${trial.choice}, run ${trial.repeat}) is ${trial.state}; only a finished trial can be chosen. Wait for it to end.`,
      });
  }
  const note = options.input.note?.trim() ? options.input.note.trim() : null;
  await deps.studies.setChosen({ studyId, trialId, note, by: options.by, at: deps.now() });
  const reason =
    trialId === null
      ? `Chosen result cleared by ${options.by}.`
      : `Trial ${trialId} chosen as the result by ${options.by}${note ? `: ${note.slice(0, 200)}` : "."}`;
  await announceStudyChange(deps, {
    studyId,
    projectId: study.projectId,
    reason,
    trialIds: trialId === null ? (study.chosen ? [study.chosen.trialId] : []) : [trialId],
  });
  return requireStudy(deps.studies, studyId);
}
