import { HARNESS_INFO } from "../../../shared/harness-kinds";
import { feedbackSections } from "./report-markdown-feedback";
import { firstAttempts, trialHasTokens } from "../../../shared/study-aggregates";
import type { ReportConfiguration, ReportTrial, StudyReport } from "../../../shared/study-report";
import { compareTrialPlaces, configurationName, trialNumber } from "../../../shared/domain-names";
import type { TestCounts } from "../../../shared/verdict-summary";
import { codeBlock, codeSpan, escapeCell, escapeInline, quoteBlock } from "./markdown-text";
import { parseStudyReport } from "./parse-study-report";
import { aggregatesSection, comparisonsSection } from "./report-markdown-aggregates";
import { configurationCells, formatNumber, formatSeconds, NONE, tableHead, tableRow } from "./report-markdown-table";
import { earlierAttemptsSection, outcomeText, verdictLevelText } from "./report-outcome";
import { capturedChangesSection, testsMissingSection, testSteeringSection } from "./report-captured-changes";
import { testMatrixSection } from "./report-markdown-tests";
import { costsSection } from "./report-markdown-costs";

/** `2025-03-01 14:05 UTC`, whatever offset the ISO string used. */
export function formatReportDate(iso: string | null): string {
  if (iso === null) return NONE;
  return `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The short form Docker shows: 12 hex digits, without `sha256:`. */
const shortImageId = (imageId: string): string => imageId.replace(/^sha256:/, "").slice(0, 12);

function formatCounts(counts: Pick<TestCounts, "passed" | "total" | "source">): string {
  if (counts.total !== null) return `${counts.passed ?? "?"}/${counts.total} passed (${escapeInline(counts.source)})`;
  if (counts.passed !== null) return `${counts.passed} passed (${escapeInline(counts.source)})`;
  return `no test counts (${escapeInline(counts.source)})`;
}

/** `23/23`, `pass`/`fail` for a verdict read from the exit code only, `—` for none; flagged when test configuration changed. */
function testsPassedCell(trial: ReportTrial): string {
  const cell = testsPassedText(trial);
  return trial.testSteering?.some((item) => item.shown) && cell !== NONE ? `${cell} ⚠ test config changed` : cell;
}

function testsPassedText(trial: ReportTrial): string {
  const verdict = trial.verdict;
  if (verdict === null) return NONE;
  if (verdict.source === "exit-code") return verdict.ok ? "pass" : "fail";
  if (verdict.total !== null)
    return `${verdict.passed ?? "?"}/${verdict.total}${trial.testsMissing ? ` ⚠ ${trial.testsMissing.missing} did not run` : ""}`;
  if (verdict.passed !== null) return String(verdict.passed);
  return verdict.ok ? "pass" : "fail";
}

/** "2.3" or "2.3 (attempt 2)": the trial's number (domain-names.ts), and its attempt once it was retried. */
function trialLabel(trial: ReportTrial): string {
  const attempt = trial.attempt > 1 ? ` (attempt ${trial.attempt})` : "";
  return `${trialNumber(trial)}${attempt}`;
}

function header(report: StudyReport): string[] {
  const { study } = report;
  const title = study.title.trim() === "" ? "Untitled study" : study.title;
  return [
    `# ${escapeInline(title)}`,
    "",
    `Study ${codeSpan(study.id)} of project ${escapeInline(study.projectName) || codeSpan(study.projectId)} · state: ${escapeInline(study.state)} · ` +
      `created ${formatReportDate(study.createdAt)} · started ${formatReportDate(study.startedAt)} · finished ${formatReportDate(study.finishedAt)}`,
    "",
    `Report generated ${formatReportDate(report.generatedAt)} (invariant-web study report, schema version ${report.version}).`,
  ];
}

function taskSection(report: StudyReport): string[] {
  const { study } = report;
  const lines = [
    "## Task",
    "",
    study.taskPrompt.trim() === "" ? "_No task prompt was recorded._" : quoteBlock(study.taskPrompt),
    "",
    "Judged by this test command:",
    "",
  ];
  lines.push(
    study.testCommand.trim() === ""
      ? "_No test command was recorded._"
      : codeBlock({ text: study.testCommand, language: "sh" }),
  );
  if (study.testFiles.length > 0) {
    lines.push("", "Test files, fixed for every trial:", "");
    for (const file of study.testFiles)
      lines.push(
        `- ${codeSpan(file.path)}${file.role === "config" ? " (runner config)" : ""}: ${formatNumber(file.bytes)} bytes, sha256 ${codeSpan(file.sha256.slice(0, 12))}`,
      );
  }
  if (study.junitPath !== null) lines.push("", `JUnit report read from ${codeSpan(study.junitPath)}.`);
  return lines;
}

/** "token budget 250,000 tokens per trial", or the project's when the study set none. */
function budgetText(tokenBudget: number | null | undefined): string {
  if (tokenBudget === undefined) return "token budget not recorded";
  return tokenBudget === null
    ? "token budget per trial: the project's"
    : `token budget ${tokenBudget.toLocaleString("en-US")} tokens per trial`;
}

function environmentSection(report: StudyReport): string[] {
  const { environment, study } = report;
  const version = environment.version === null ? "not recorded" : `v${environment.version}`;
  const versionId = environment.versionId === null ? "" : ` (${codeSpan(environment.versionId)})`;
  const image = environment.imageId === null ? "not recorded" : codeSpan(shortImageId(environment.imageId));
  const digest = environment.imageDigest === null ? "" : `, digest ${codeSpan(environment.imageDigest)}`;
  return [
    "## Environment",
    "",
    `- Environment: ${version}${versionId}`,
    `- Image: ${image}${digest}`,
    `- Snapshot: ${report.snapshotId === null ? "not recorded" : codeSpan(report.snapshotId)}`,
    `- Baseline: ${report.baseline === null ? "not recorded" : formatCounts(report.baseline)}`,
    `- Limits: ${study.concurrency} at a time, agent timeout ${study.agentTimeoutSec} s, evaluation timeout ${study.evalTimeoutSec} s, ${budgetText(study.tokenBudget)}`,
  ];
}

/** "Claude Code (2.1.332), model claude-sonnet-4-5, effort high"; a command line as code. */
function harnessDescription(configuration: ReportConfiguration, versions: (string | null)[]): string {
  if (configuration.harness === "command") return `command ${codeSpan(configuration.command ?? "")}`;
  const { label, efforts } = HARNESS_INFO[configuration.harness];
  const agent =
    versions.length > 0 ? `${label} (${versions.map((version) => escapeInline(version ?? "")).join(", ")})` : label;
  const effort = efforts.length > 0 ? `, effort ${configuration.reasoningEffort}` : "";
  return `${agent}, model ${escapeInline(configuration.model) || NONE}${effort}`;
}

function configurationsSection(report: StudyReport): string[] {
  const lines = ["## Configurations", ""];
  for (const configuration of report.configurations) {
    const repeats = `${configuration.repeats} ${configuration.repeats === 1 ? "repeat" : "repeats"}`;
    const versions = [
      ...new Set(
        report.trials
          .filter((trial) => trial.choice === configuration.choice && trial.harnessVersion)
          .map((trial) => trial.harnessVersion),
      ),
    ];
    const runsWith = harnessDescription(configuration, versions);
    let line = `- ${configurationName(configuration.choice)} (${escapeInline(configuration.label)}): ${runsWith}, ${repeats}`;
    if (configuration.derivedFrom) line += ` (configuration ${configuration.derivedFrom} edited on retry)`;
    if (configuration.instructions.trim() !== "") line += `; instructions: ${escapeInline(configuration.instructions)}`;
    lines.push(line);
  }
  return lines;
}

function resultsSection(options: {
  configurations: Map<number, ReportConfiguration>;
  trials: ReportTrial[];
}): string[] {
  const lines = [
    "## Results",
    "",
    "Outcome: how the run ended (completed = the agent finished and the tests ran, whatever they said). Verdict: how many of the tests passed.",
    "",
    ...tableHead(["trial", "configuration", "outcome", "tests passed", "verdict", "agent seconds", "tokens"]),
  ];
  for (const trial of options.trials) {
    lines.push(
      tableRow([
        trialLabel(trial),
        ...configurationCells(options.configurations.get(trial.choice)),
        escapeCell(outcomeText(trial)),
        testsPassedCell(trial),
        verdictLevelText(trial),
        formatSeconds(trial.agentSeconds),
        trialHasTokens(trial) ? formatNumber(trial.tokens.total) : NONE,
      ]),
    );
  }
  if (options.trials.length === 0) lines.push("", "_No trials were recorded._");
  return lines;
}

function errorsSection(options: { trials: ReportTrial[] }): string[] {
  const failed = options.trials.filter((trial) => trial.error !== null && trial.error.trim() !== "");
  if (failed.length === 0) return [];
  const lines = ["## Errors", ""];
  for (const trial of failed) {
    lines.push(`- Trial ${trialLabel(trial)}: ${escapeInline(trial.error ?? "")}`);
  }
  return lines;
}

/** The chosen result, when an admin kept one: which trial, by whom, when, and their note. */
function chosenSection(options: { report: StudyReport }): string[] {
  const chosen = options.report.chosen;
  const trial = chosen ? options.report.trials.find((candidate) => candidate.id === chosen.trialId) : undefined;
  if (!chosen || !trial) return [];
  const label = trialLabel(trial);
  const lines = [
    "## Chosen result",
    "",
    `Trial ${label} (id ${codeSpan(trial.id)}), tests passed: ${testsPassedCell(trial)}; chosen by ${escapeInline(chosen.by)} on ${formatReportDate(chosen.at)}.`,
  ];
  if (chosen.note !== null && chosen.note.trim() !== "") lines.push("", quoteBlock(chosen.note));
  return lines;
}

function closingNote(several: boolean): string {
  const sample = several
    ? "A few repeats show some of the spread, but they are still a handful of runs"
    : "Each configuration ran once, so every row is a single run";
  return (
    "_These are recorded measurements of one task, in one environment, judged by one test command. " +
    `${sample}: this is not a ranking of models or harnesses, and running the study again can give different results._`
  );
}

/**
 * The report as a short Markdown record: title and dates, the task and test command, the environment
 * and baseline, the configurations, one results row per trial, per-configuration aggregates when any
 * configuration ran more than once, errors, and a closing note on what the numbers do not show.
 */
export function renderMarkdownReport(input: StudyReport): string {
  const report = parseStudyReport(input);
  const configurations = new Map(report.configurations.map((configuration) => [configuration.choice, configuration]));
  const trials = [...report.trials].sort((a, b) => compareTrialPlaces(a, b) || a.attempt - b.attempt);
  const trialCounts = new Map<number, number>();
  for (const trial of firstAttempts(trials)) trialCounts.set(trial.choice, (trialCounts.get(trial.choice) ?? 0) + 1);
  const several = [...trialCounts.values()].some((count) => count > 1);

  const sections = [
    header(report),
    taskSection(report),
    environmentSection(report),
    configurationsSection(report),
    resultsSection({ configurations, trials }),
    testSteeringSection({
      trials,
      label: trialLabel,
    }),
    ...feedbackSections(trials),
    chosenSection({ report }),
    several ? aggregatesSection(report) : [],
    comparisonsSection(report),
    costsSection(report),
    testMatrixSection(report),
    errorsSection({ trials }),
    testsMissingSection({
      trials,
      label: trialLabel,
    }),
    capturedChangesSection({
      trials,
      label: trialLabel,
    }),
    earlierAttemptsSection({
      trials,
      label: trialLabel,
    }),
  ];
  const body = sections.filter((lines) => lines.length > 0).map((lines) => lines.join("\n").replace(/\n+$/, ""));
  return `${[...body, closingNote(several)].join("\n\n")}\n`;
}
