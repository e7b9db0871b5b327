import { capturedChangesText } from "../../shared/captured-files";
import type { ReportTrial } from "../../shared/study-report";
import { escapeInline } from "./markdown-text";

/**
 * The tamper indicator in the Markdown report: each trial whose agent changed a captured file (a test or
 * runner config) or left a JUnit report behind. The evaluation restored or cleared them, so its verdict
 * stands; the list says which runs tried.
 */
export function capturedChangesSection(options: {
  trials: readonly ReportTrial[];
  label: (trial: ReportTrial) => string;
}): string[] {
  const changed = options.trials.filter((trial) => (trial.capturedChanges?.length ?? 0) > 0);
  if (changed.length === 0) return [];
  const lines = [
    "## Captured files the agents changed",
    "",
    "Restored (or, for a report left behind, cleared) before the evaluation, so the verdicts above are the test command's own.",
    "",
  ];
  for (const trial of changed)
    lines.push(`- Config ${options.label(trial)}: ${escapeInline(capturedChangesText(trial.capturedChanges ?? []))}`);
  return lines;
}
