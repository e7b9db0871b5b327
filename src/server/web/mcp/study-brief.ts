import { trialName } from "../../../shared/domain-names";
import type { StudySummaryView, StudyView, TrialView } from "../../../shared/study-schemas";

/**
 * A study as the tools answer with it: what an assistant needs to decide (state, baseline, verdicts,
 * the chosen result), not every field of the page's view (manifests, attempts, test files).
 */
export function trialBrief(t: TrialView) {
  return {
    id: t.id,
    name: trialName(t),
    choice: t.choice,
    repeat: t.repeat,
    parentTrialId: t.parentTrialId,
    state: t.state,
    outcome: t.outcome,
    step: t.step,
    verdict: t.verdict,
    testsMissing: t.testsMissing,
    error: t.error,
    agentSeconds: t.agentSeconds,
    tokens: t.tokens,
    diff: t.diff,
    workspaceId: t.workspaceId,
    finishedAt: t.finishedAt,
  };
}

export function studySummaryBrief(s: StudySummaryView) {
  return {
    id: s.id,
    title: s.title,
    projectId: s.projectId,
    projectName: s.projectName,
    state: s.state,
    shownState: s.shownState,
    refusal: s.refusal,
    baseline: s.baseline,
    counts: s.counts,
    chosen: s.chosen,
    createdAt: s.createdAt,
    finishedAt: s.finishedAt,
  };
}

export function studyBrief(s: StudyView) {
  return {
    ...studySummaryBrief(s),
    testCommand: s.testCommand,
    configurations: s.configurations.map((c) => ({
      choice: c.choice,
      label: c.label,
      harness: c.harness,
      model: c.model,
      reasoningEffort: c.reasoningEffort,
      repeats: c.repeats,
    })),
    trials: s.trials.map(trialBrief),
  };
}

/** One line: the state and each trial's verdict so far. */
export function studyLine(s: StudyView): string {
  const verdicts = s.trials
    .map((t) => `${trialName(t)} ${t.state}${t.verdict ? ` ${t.verdict.passed ?? "?"}/${t.verdict.total ?? "?"}` : ""}`)
    .join(", ");
  return `Study ${s.id} "${s.title}" is ${s.shownState}${s.refusal ? ` (${s.refusal})` : ""}${verdicts ? `: ${verdicts}` : ""}.`;
}
