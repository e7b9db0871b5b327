import type { TrialView, StudyView } from "../../../shared/study-schemas";
import { trialName } from "../../../shared/domain-names";

/**
 * The branch a trial is applied as, `invariant/<study>-<number>` (number as the study page shows it: 2.1,
 * or 2.1.1 for a follow-up), and its commit message: the task's first line, the trial and its verdict,
 * the task, and trailers naming the study and the trial.
 */
const SLUG_MAX = 40;

/** The study's title as a short slug that is valid in a ref name (git check-ref-format). */
export function studySlug(study: Pick<StudyView, "id" | "title">): string {
  const slug = study.title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX)
    .replace(/-+$/g, "");
  return (
    slug ||
    `study-${study.id
      .slice(-8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")}`
  );
}

export function branchNameOf(
  study: Pick<StudyView, "id" | "title">,
  trial: Pick<TrialView, "number" | "choice" | "repeat" | "followUpPath">,
): string {
  const number = trial.number || [trial.choice, trial.repeat, ...trial.followUpPath].join(".");
  return `invariant/${studySlug(study)}-${number}`;
}

function verdictLine(trial: TrialView): string {
  const verdict = trial.verdict;
  if (!verdict) return `no verdict (the trial ${trial.state})`;
  return `${verdict.passed}/${verdict.total} tests passed${verdict.failed ? `, ${verdict.failed} failed` : ""}`;
}

export function commitMessageOf(options: { study: StudyView; trial: TrialView; configurationLabel: string }): string {
  const { study, trial } = options;
  const task = study.taskPrompt.trim().replace(/\r\n?/g, "\n");
  const first = task.split("\n")[0] ?? "";
  const subject = first.length > 72 ? `${first.slice(0, 71).trimEnd()}…` : first || study.title;
  const name = trialName({ choice: trial.choice, repeat: trial.repeat, followUpPath: trial.followUpPath });
  const body = [
    subject,
    "",
    `${name} of the study "${study.title}" (${options.configurationLabel}): ${verdictLine(trial)}.`,
    "",
    ...(task.length > first.length || first.length > 72 ? ["Task:", "", task.slice(0, 8000), ""] : []),
    `Invariant-Study: ${study.id}`,
    `Invariant-Trial: ${trial.id}`,
    "",
  ];
  return body.join("\n");
}
