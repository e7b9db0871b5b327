import type { StudyView } from "../shared/study-schemas";
import { FINISHED_STUDY_STATES } from "../shared/vocabulary";
import type { ExitKind } from "./cli-schemas";
import { verdictText } from "./cli-views";
import { CliTimeout, onePositional, resolveStudyId, type WorkflowContext } from "./workflow-cli";
import { configurationName, trialName, trialNumber } from "../shared/domain-names";

/**
 * `study wait` and `study follow`: the study is read every `pollMs` through the API until it is over
 * (done, refused or stopped); each change is reported once.
 */

/** What changed since the last look: state, and each trial's state, step and verdict. */
function signature(study: StudyView): string {
  return JSON.stringify([
    study.state,
    study.baseline?.passed ?? null,
    study.trials.map((t) => [t.id, t.state, t.step, t.verdict?.passed ?? null, t.attempt]),
  ]);
}

/** One line a person reads: the state, where the trials are, and the verdicts so far. */
export function progressLine(study: StudyView): string {
  const byState = new Map<string, number>();
  for (const trial of study.trials) byState.set(trial.state, (byState.get(trial.state) ?? 0) + 1);
  const states = [...byState.entries()].map(([state, n]) => `${n} ${state}`).join(", ");
  const verdicts = study.trials
    .filter((t) => t.verdict)
    .map((t) => `${trialName(t)} ${verdictText(t.verdict)}`)
    .join(" ");
  const baseline = study.baseline ? ` · baseline ${verdictText(study.baseline)}` : "";
  const refusal = study.refusal ? ` · ${study.refusal}` : "";
  return `${study.title} [${study.shownState}]${baseline} · ${study.trials.length} trials${states ? `: ${states}` : ""}${verdicts ? ` · ${verdicts}` : ""}${refusal}`;
}

/**
 * How `study wait` and `study follow` exit for a study that is over: done → ok; refused, stopped, or done
 * with every trial interrupted (shown `interrupted`) → refused.
 */
export function exitForFinished(study: StudyView): ExitKind {
  return study.shownState === "done" ? "ok" : "refused";
}

export function isFinished(study: StudyView): boolean {
  return FINISHED_STUDY_STATES.includes(study.state);
}

/** Reads the study until it is over; `onChange` sees the first reading and each one that differs. */
export async function watchStudy(options: {
  context: WorkflowContext;
  studyId: string;
  onChange: (study: StudyView, finished: boolean) => void;
}): Promise<StudyView> {
  const { context, studyId } = options;
  const api = await context.api();
  const timeoutSec = context.config.workflow.timeoutSec;
  const deadline = timeoutSec === null ? null : Date.now() + timeoutSec * 1000;
  let last = "";
  for (;;) {
    const study = await api.studies.get.query({ studyId });
    const finished = isFinished(study);
    const now = signature(study);
    if (now !== last || finished) {
      last = now;
      options.onChange(study, finished);
    }
    if (finished) return study;
    if (deadline !== null && Date.now() >= deadline)
      throw new CliTimeout(
        `study ${studyId} is still ${study.state} after ${timeoutSec} s (${progressLine(study)}). Wait again, or stop it with invariant-web study stop ${studyId}.`,
      );
    await new Promise((resolve) => setTimeout(resolve, context.pollMs));
  }
}

export function describeStudy(study: StudyView): string {
  const lines = [
    `${study.title}  (${study.id})`,
    `  project    ${study.projectName}`,
    `  state      ${study.shownState}${study.refusal ? ` — ${study.refusal}` : ""}`,
    `  baseline   ${verdictText(study.baseline)}`,
    `  tests      ${study.testCommand}`,
  ];
  if (study.chosen)
    lines.push(`  chosen     ${study.chosen.trialId}${study.chosen.note ? ` — ${study.chosen.note}` : ""}`);
  for (const c of study.configurations)
    lines.push(
      `  ${configurationName(c.choice).toLowerCase()}   ${c.label} × ${c.repeats}${c.harness === "command" && c.command !== c.label ? `   (command: ${c.command ?? ""})` : ""}`,
    );
  if (study.trials.length > 0) lines.push("  trials:");
  for (const t of study.trials) {
    const seconds = t.agentSeconds === null ? "" : ` ${t.agentSeconds.toFixed(1)} s`;
    const tokens = t.tokens.total > 0 ? ` ${t.tokens.total.toLocaleString("en")} tokens` : "";
    lines.push(
      `    ${t.id}  ${trialNumber(t).padEnd(5)} ${t.state.padEnd(11)} ${verdictText(t.verdict).padStart(7)}${seconds}${tokens}${t.error ? `  ${t.error}` : ""}`,
    );
  }
  return lines.join("\n");
}

export async function studyFor(context: WorkflowContext, example: string): Promise<StudyView> {
  const ref = onePositional(context.config, "study", example);
  const studyId = await resolveStudyId(context, { ref, example });
  return (await context.api()).studies.get.query({ studyId });
}
