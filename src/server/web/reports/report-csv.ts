import type { ReportConfiguration, ReportTrial, StudyReport } from "../../../shared/study-report";
import { capturedChangesText } from "../../../shared/captured-files";
import { testSteeringText } from "../../../shared/test-steering";
import { verdictLevel } from "../../../shared/trial-outcome";
import { parseStudyReport } from "./parse-study-report";
import { reportOutcome } from "./report-outcome";
import { compareTrialPlaces, trialNumber } from "../../../shared/domain-names";

/** The columns, in order. One row per trial. */
export const CSV_COLUMNS = [
  "study_id",
  "choice",
  "repeat",
  "attempt",
  "configuration",
  "harness",
  "model",
  "reasoning_effort",
  "state",
  "outcome",
  "verdict",
  "tests_passed",
  "tests_failed",
  "tests_skipped",
  "tests_total",
  "verdict_source",
  "agent_seconds",
  "eval_seconds",
  "input_tokens",
  "cached_input_tokens",
  "output_tokens",
  "reasoning_tokens",
  "total_tokens",
  "thread_id",
  "error",
  "chosen",
  "chosen_note",
  "captured_changed",
  "tests_missing",
  "cost_usd",
  "test_config_changed",
  "trial",
  "parent_trial_id",
] as const;

/** A cell: text (guarded and quoted as needed), a number (written as is), or null (empty). */
type CsvCell = { text: string } | number | null;

/**
 * First characters that make a spreadsheet read a text cell as a formula (OWASP's list: = + - @ tab CR),
 * plus their full-width forms, which some spreadsheet locales treat the same way.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Text cells that a spreadsheet would run as a formula get a leading `'`; numbers are not touched. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** RFC 4180: a field holding a quote, comma, CR or LF is wrapped in quotes, with quotes doubled. */
export function quoteCsvField(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

function cell(value: CsvCell): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  return quoteCsvField(guardFormula(value.text));
}

const text = (value: string | null): CsvCell => (value === null ? null : { text: value });

function row(options: {
  report: StudyReport;
  configuration: ReportConfiguration | undefined;
  trial: ReportTrial;
}): CsvCell[] {
  const { trial, configuration } = options;
  const verdict = trial.verdict;
  const chosen = options.report.chosen?.trialId === trial.id ? options.report.chosen : null;
  return [
    text(options.report.study.id),
    trial.choice,
    trial.repeat,
    trial.attempt,
    // its label (unique in the study: configuration-label.ts)
    text(configuration?.label ?? null),
    text(configuration?.harness ?? null),
    text(configuration?.model ?? null),
    text(configuration?.reasoningEffort ?? null),
    text(trial.state),
    text(reportOutcome(trial)),
    text(verdictLevel(verdict)),
    verdict?.passed ?? null,
    verdict?.failed ?? null,
    verdict?.skipped ?? null,
    verdict?.total ?? null,
    text(verdict?.source ?? null),
    trial.agentSeconds,
    trial.evalSeconds,
    trial.tokens.input,
    trial.tokens.cachedInput,
    trial.tokens.output,
    trial.tokens.reasoning,
    trial.tokens.total,
    text(trial.threadId),
    text(trial.error),
    chosen ? 1 : 0,
    text(chosen?.note ?? null),
    // the tamper indicator: empty when not checked, "none" when the agent changed no captured file
    trial.capturedChanges ? text(capturedChangesText(trial.capturedChanges) || "none") : null,
    // the integrity flag: tests the baseline counted that did not run (0 = none missing; tests_total is the baseline's)
    trial.verdict && trial.verdict.source !== "exit-code" ? (trial.testsMissing?.missing ?? 0) : null,
    // by the price table in force when the report was made; empty: unknown price (or no costs in the report)
    options.report.costs?.trials.find((cost) => cost.trialId === trial.id)?.cost ?? null,
    // the test-steering flag: empty when not checked, "none" when the agent changed no such file
    trial.testSteering ? text(testSteeringText(trial.testSteering) || "none") : null,
    // "1.2.1" for a follow-up (review feedback sent back to the agent), with the trial it continued
    text(trialNumber(trial)),
    text(trial.parentTrialId ?? null),
  ];
}

/**
 * The trials as CSV (RFC 4180): a header row, then one row per trial ordered by choice, repeat and
 * attempt; CRLF line ends, including after the last row. Empty cells are nulls (no verdict, no time).
 */
export function renderCsvReport(input: StudyReport): string {
  const report = parseStudyReport(input);
  const configurations = new Map(report.configurations.map((configuration) => [configuration.choice, configuration]));
  const trials = [...report.trials].sort((a, b) => compareTrialPlaces(a, b) || a.attempt - b.attempt);
  const lines = [
    CSV_COLUMNS.join(","),
    ...trials.map((trial) =>
      row({ report, configuration: configurations.get(trial.choice), trial })
        .map(cell)
        .join(","),
    ),
  ];
  return lines.map((line) => `${line}\r\n`).join("");
}
