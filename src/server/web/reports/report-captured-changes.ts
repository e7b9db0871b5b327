import { capturedChangesText } from "../../../shared/captured-files";
import { testsMissingExplanation, testsMissingText } from "../../../shared/test-integrity";
import { testSteeringText } from "../../../shared/test-steering";
import type { ReportTrial } from "../../../shared/study-report";
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
    lines.push(`- Trial ${options.label(trial)}: ${escapeInline(capturedChangesText(trial.capturedChanges ?? []))}`);
  return lines;
}

/**
 * The integrity flag in the Markdown report: each trial whose evaluation counted fewer tests than the
 * baseline. Its verdict above is judged against the baseline's total (the tests that did not run failed).
 */
export function testsMissingSection(options: {
  trials: readonly ReportTrial[];
  label: (trial: ReportTrial) => string;
}): string[] {
  const flagged = options.trials.filter((trial) => trial.testsMissing);
  if (flagged.length === 0) return [];
  const lines = [
    "## Tests that did not run",
    "",
    "These evaluations counted fewer tests than the baseline of the untouched snapshot (a syntax error can make a runner report a whole file as one failure). Each is judged against the baseline's total: the tests that did not run count as failed.",
    "",
  ];
  for (const trial of flagged) {
    const missing = trial.testsMissing;
    if (missing)
      lines.push(`- Trial ${options.label(trial)}: ${testsMissingText(missing)}. ${testsMissingExplanation(missing)}`);
  }
  return lines;
}

/**
 * The test-steering flag in the Markdown report: each trial whose agent changed a file that steers how
 * tests run (a pytest hook file, a runner config, package.json scripts, …). Its pass is only as good as
 * that change: read it in the review first. Files hidden from the review were not evaluated.
 */
export function testSteeringSection(options: {
  trials: readonly ReportTrial[];
  label: (trial: ReportTrial) => string;
}): string[] {
  const flagged = options.trials.filter((trial) => (trial.testSteering?.length ?? 0) > 0);
  if (flagged.length === 0) return [];
  const lines = [
    "## Test configuration the agents changed",
    "",
    "These runs changed files that steer how the tests run, which restoring the captured tests does not undo: a pass is only as good as the change. Review it before trusting the verdict. A file hidden from the review (by ignore rules) was left out of the evaluation.",
    "",
  ];
  for (const trial of flagged)
    lines.push(`- Trial ${options.label(trial)}: ${escapeInline(testSteeringText(trial.testSteering ?? []))}`);
  return lines;
}
