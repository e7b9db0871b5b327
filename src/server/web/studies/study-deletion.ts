import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import { LABEL } from "../../core/runtime/container-spec";
import type { RemovalJournal } from "../cleanup/removal-journal";
import { FINISHED_STUDY_STATES } from "../../../shared/vocabulary";
import type { StudyQueries } from "./studies.queries";

/**
 * Deleting a finished study: its rows and recorded events in one transaction, then everything it
 * left on disk and in Docker — every attempt's workspace and committed image, the trials' logs and
 * evaluation files, the captured test files — through the removal journal (crash-safe).
 */
export interface StudyDeletionResult {
  studyId: string;
  removed: { trials: number; workspaces: number; images: number };
  /** What could not be removed yet (retried at the next start), one sentence each. */
  leftovers: string[];
}

/** What a study owns besides its rows, for a study or a project removal. */
export async function studyRemovalParts(studies: Pick<StudyQueries, "deletionPlan">, studyId: string) {
  const plan = await studies.deletionPlan(studyId);
  return {
    trials: plan.trialIds.length,
    imageIds: plan.imageIds,
    workspaceIds: plan.workspaceIds,
    paths: [
      path.join("studies", studyId),
      ...plan.trialIds.map((trialId) => path.join("trials", trialId)),
      ...plan.artifactPaths,
    ],
  };
}

export async function deleteStudy(
  deps: { studies: Pick<StudyQueries, "find" | "deletionPlan" | "deleteStudy">; journal: RemovalJournal },
  studyId: string,
): Promise<StudyDeletionResult> {
  const study = await deps.studies.find(studyId);
  if (!study)
    throw new AppError({
      code: "NOT_FOUND",
      message: `No study with id ${studyId}. It may have been deleted already; open the study list.`,
    });
  if (!FINISHED_STUDY_STATES.includes(study.state)) {
    throw new AppError({
      code: "CONFLICT",
      message: `"${study.title}" is ${study.state}; stop it first (or wait for it to finish), then delete it.`,
    });
  }
  const parts = await studyRemovalParts(deps.studies, studyId);
  const leftovers = await deps.journal.remove(
    {
      owner: { kind: "study", id: studyId },
      projectId: study.projectId,
      ...parts,
      // committed trial images carry their container's labels: any the rows do not name are found too
      imageLabels: { [LABEL.study]: studyId },
    },
    () => deps.studies.deleteStudy(studyId),
  );
  return {
    studyId,
    removed: { trials: parts.trials, workspaces: parts.workspaceIds.length, images: parts.imageIds.length },
    leftovers,
  };
}
